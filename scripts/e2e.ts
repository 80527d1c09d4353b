// The browser suite (`npm run test:e2e`): builds the console once, then runs the test files two at a time,
// except those that measure time or lean on the dialler's timing, which run one at a time afterwards.
// Each file starts its own product and Chromium; two at a time, from one migrated database, took the suite
// from about 640 s to 464–484 s on the 2-core CI machine.
//
// Prints node:test's TAP for each group and then one summary in the same form (`# pass N`, `# fail N`,
// `# skipped N`) for the whole suite, so a reader (and .ci/run) can count the lot. Exits non-zero when any
// file failed. Extra arguments are test files to run instead of the whole suite (all in the first group).
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openDatabase } from "../server/db/client";
import { runMigrations } from "../server/db/migrate";
import { ensureConsoleBuilt } from "./console-build";

const root = resolve(import.meta.dirname, "..");

/**
 * Files that run alone: a second product and Chromium beside them would steal the time they measure
 * (toast lifetimes to the second) or stretch the dialler's lease and webhook timings they wait on.
 */
const ONE_AT_A_TIME = ["tests/e2e/toasts.e2e.ts", "tests/e2e/campaigns.e2e.ts", "tests/e2e/orders.e2e.ts"];
// An empty E2E_CONCURRENCY (as .env.example has it) means the default, not 0.
const CONCURRENCY = Number(process.env.E2E_CONCURRENCY) || 2;

const all = readdirSync(join(root, "tests/e2e"))
  .filter((name) => name.endsWith(".e2e.ts"))
  .sort()
  .map((name) => `tests/e2e/${name}`);
const chosen = process.argv.slice(2);
const groups: { files: string[]; concurrency: number }[] = chosen.length
  ? [{ files: chosen, concurrency: CONCURRENCY }]
  : [
      { files: all.filter((file) => !ONE_AT_A_TIME.includes(file)), concurrency: CONCURRENCY },
      { files: all.filter((file) => ONE_AT_A_TIME.includes(file)), concurrency: 1 },
    ];

/**
 * An embedded database made and migrated once for the whole suite: each file's product starts from a copy
 * (tests/e2e/harness.ts, E2E_PGLITE_TEMPLATE). A new PGlite folder spends about 5 s in initdb on the
 * 2-core machine; a copy takes 0.2 s and opens in 0.4 s. The products still seed their own demo.
 */
async function databaseTemplate(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), "vap-e2e-template-"));
  const database = await openDatabase({ kind: "pglite", dataDir });
  await runMigrations(database);
  await database.close();
  return join(dataDir, "pglite");
}

function run(files: string[], concurrency: number, template: string): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ["--import", "tsx", "--test", `--test-concurrency=${concurrency}`, ...files], {
      cwd: root,
      env: { ...process.env, E2E_PGLITE_TEMPLATE: template },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk;
      process.stdout.write(chunk);
    });
    child.on("close", (code) => done({ code: code ?? 1, output }));
  });
}

/** A figure from node:test's closing summary (`# pass 12`); 0 when the run printed none. */
const count = (output: string, key: string) => Number(output.match(new RegExp(`^# ${key} (\\d+)$`, "m"))?.[1] ?? 0);

ensureConsoleBuilt();
const started = Date.now();
const template = await databaseTemplate();
const totals = { tests: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
let failed = false;
try {
  for (const group of groups) {
    if (!group.files.length) continue;
    console.log(`# ${group.files.length} files, ${group.concurrency} at a time`);
    const { code, output } = await run(group.files, group.concurrency, template);
    if (code !== 0) failed = true;
    for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += count(output, key);
  }
} finally {
  rmSync(resolve(template, ".."), { recursive: true, force: true });
}
console.log("# the whole browser suite");
for (const [key, value] of Object.entries(totals)) console.log(`# ${key} ${value}`);
console.log(`# duration_ms ${Date.now() - started}`);
process.exit(failed ? 1 : 0);
