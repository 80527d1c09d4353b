/** What one test file tried: cases per kind and the routes they touched (summed by global-setup.ts). */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { basename } from "node:path";
import { afterAll, inject } from "vitest";

export function tally(file: string) {
  const kinds: Record<string, number> = {};
  const routes = new Set<string>();
  afterAll(() => {
    const total = Object.values(kinds).reduce((a, b) => a + b, 0);
    console.log(`${basename(file)}: ${routes.size} routes, ${total} cases (${Object.entries(kinds).map(([k, n]) => `${k} ${n}`).join(", ")})`);
    writeFileSync(join(inject("securityTallyDir"), `${basename(file)}.json`), JSON.stringify({ kinds, routes: [...routes] }));
  });
  return {
    /** One case of `kind` tried on `route` ("METHOD /pattern"). */
    count(kind: string, route: string, n = 1) {
      kinds[kind] = (kinds[kind] ?? 0) + n;
      routes.add(route);
    },
  };
}
