import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
export const consoleDir = join(root, "dist", "console");

/** What the console build is made from: a change to any of these makes the build stale. */
const SOURCES = ["src", "contract", "public", "index.html", "vite.config.ts", "package.json", "package-lock.json"];

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

export function consoleBuildState(): "missing" | "stale" | "fresh" {
  const index = join(consoleDir, "index.html");
  if (!existsSync(index)) return "missing";
  const built = statSync(index).mtimeMs;
  const newest = Math.max(...SOURCES.map((s) => newestMtime(join(root, s))));
  return newest > built ? "stale" : "fresh";
}

/** Builds the console with Vite when its build is missing or older than its sources. */
export function ensureConsoleBuilt(log: (line: string) => void = console.log): void {
  const state = consoleBuildState();
  if (state === "fresh") return;
  log(state === "missing" ? "console: no build yet, building it (once)…" : "console: sources changed, rebuilding…");
  const started = Date.now();
  const vite = join(root, "node_modules", "vite", "bin", "vite.js");
  const result = spawnSync(process.execPath, [vite, "build", "--logLevel", "warn"], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`The console build failed (vite exited with ${result.status}).`);
  log(`console: built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
