/**
 * The security project's one summary line. Each test file records what it tried (tally.ts) into a
 * scratch folder; when every file has run, this prints "security suite: R routes × K case kinds = N
 * cases tried" and the per-kind breakdown.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    securityTallyDir: string;
  }
}

export default function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), "vap-security-tally-"));
  project.provide("securityTallyDir", dir);
  return () => {
    const kinds = new Map<string, number>();
    const routes = new Set<string>();
    for (const file of readdirSync(dir)) {
      const tally = JSON.parse(readFileSync(join(dir, file), "utf8")) as { kinds: Record<string, number>; routes: string[] };
      for (const [kind, n] of Object.entries(tally.kinds)) kinds.set(kind, (kinds.get(kind) ?? 0) + n);
      for (const route of tally.routes) routes.add(route);
    }
    rmSync(dir, { recursive: true, force: true });
    const total = [...kinds.values()].reduce((a, b) => a + b, 0);
    const fmt = (n: number) => n.toLocaleString("en-GB");
    console.log(`\nsecurity suite: ${fmt(routes.size)} routes × ${kinds.size} case kinds = ${fmt(total)} cases tried`);
    for (const [kind, n] of [...kinds.entries()].sort()) console.log(`  ${kind.padEnd(34)} ${fmt(n).padStart(7)}`);
  };
}
