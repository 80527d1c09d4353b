// `npm run bench:smoke [-- --skip=console,bench] [-- --timeout=600]`: every bench's smoke mode, one after
// the other, as CI runs them (issue 30 §4): `npm run bench:calls -- --smoke`, bench:dashboard,
// bench:campaign, bench:calendar, bench:billing, bench:console and `npm run bench -- --smoke`. Each is
// the smallest run through every code path of its bench (bench/measure.ts benchMode); their figures say
// nothing and a missed budget is never fatal. What is fatal is a bench that breaks: it exits non-zero,
// and so does this script, after running the rest, with a line per bench (its exit code and wall time).
//
// PostgreSQL when TEST_DATABASE_URL is set, as each bench decides (bench:campaign needs one: it tries
// 127.0.0.1:5432 and says it skipped without one). bench:console and `npm run bench` need the built
// console (dist/console): they build it first when it is missing or stale, which takes minutes on 2 cores;
// in CI the browser suite has built it already.
// --skip=NAME,…: leave out these (calls, dashboard, campaign, calendar, billing, console, bench).
// --timeout=SECONDS (default 600): a bench still running then is stopped (its process group) and fails.
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { performance } from "node:perf_hooks";

const BENCHES = [
  ["calls", "bench:calls"],
  ["dashboard", "bench:dashboard"],
  ["campaign", "bench:campaign"],
  ["calendar", "bench:calendar"],
  ["billing", "bench:billing"],
  ["console", "bench:console"],
  ["bench", "bench"],
] as const;

const option = (name: string) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? null;
const skip = new Set((option("skip") ?? "").split(",").filter(Boolean));
const unknown = [...skip].filter((name) => !BENCHES.some(([known]) => known === name));
if (unknown.length) {
  console.error(`bench:smoke: --skip names no bench: ${unknown.join(", ")} (known: ${BENCHES.map(([name]) => name).join(", ")})`);
  process.exit(2);
}
const timeoutSeconds = Number(option("timeout") ?? 600);
const root = resolve(import.meta.dirname, "..");

interface Outcome {
  name: string;
  command: string;
  seconds: number;
  code: number | null;
  timedOut: boolean;
}

function run(script: string): Promise<{ code: number | null; timedOut: boolean }> {
  return new Promise((done) => {
    // Its own process group, so a timeout stops the servers and browsers it started too.
    const child = spawn("npm", ["run", "-s", script, "--", "--smoke"], { cwd: root, stdio: "inherit", detached: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, "SIGTERM");
        setTimeout(() => {
          try {
            process.kill(-child.pid!, "SIGKILL");
          } catch {
            // Already gone.
          }
        }, 10_000).unref();
      } catch {
        // Already gone.
      }
    }, timeoutSeconds * 1000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      done({ code, timedOut });
    });
  });
}

const outcomes: Outcome[] = [];
for (const [name, script] of BENCHES) {
  if (skip.has(name)) continue;
  const command = `npm run ${script} -- --smoke`;
  console.log(`\n== ${command}`);
  const started = performance.now();
  const { code, timedOut } = await run(script);
  outcomes.push({ name, command, seconds: (performance.now() - started) / 1000, code, timedOut });
}

console.log("\nbench:smoke: every bench's smoke run (figures informational; a bench that breaks fails)");
for (const outcome of outcomes) {
  const verdict = outcome.timedOut ? `STOPPED after ${timeoutSeconds} s` : outcome.code === 0 ? "ok" : `FAILED (exit ${outcome.code})`;
  console.log(`  ${outcome.command.padEnd(36)} ${`${outcome.seconds.toFixed(1)} s`.padStart(8)}  ${verdict}`);
}
if (skip.size) console.log(`  skipped: ${[...skip].join(", ")}`);
const failed = outcomes.filter((outcome) => outcome.timedOut || outcome.code !== 0);
console.log(failed.length ? `${failed.length} of ${outcomes.length} benches broke: ${failed.map((outcome) => outcome.name).join(", ")}` : `all ${outcomes.length} benches ran`);
process.exit(failed.length ? 1 : 0);
