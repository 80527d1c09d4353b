// `npm run test:mutations`: proof that the concurrency tests can fail. Each mutation removes a protection
// (a lock, a constraint, a unique index, an idempotency key) from a copy of the project, runs the tests that
// guard it on PostgreSQL and Redis, and reports whether they failed. Where protections are layered (a row lock
// and a unique index both keep a top-up from being credited twice), each layer is removed alone too: the
// other must then still hold (the tests pass), and both removed together must be caught.
//
// Needs PostgreSQL and Redis as `npm run test:engines` does (TEST_DATABASE_URL, TEST_REDIS_URL, defaulting to
// 127.0.0.1). Not part of .ci/run (about ten minutes on the 2-core machine): run it after changing a lock, a
// constraint or one of these tests, and keep its table in the README current. `--only=NAME` runs one mutation.
//
// The copy holds the working tree as it is (tracked and untracked files, not ignored ones) with node_modules
// linked and ../shared beside it, so neither the checkout nor git is touched however the run ends.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const RACES = "tests/server/races-processes.test.ts";
const KILLS = "tests/server/dialler-processes.test.ts";

interface Edit {
  file: string;
  find: string;
  replace: string;
  /** Every occurrence (default: exactly one must exist). */
  all?: boolean;
}

interface Mutation {
  name: string;
  /** The protection removed, in a line. */
  removes: string;
  edits: Edit[];
  /** The guarding tests: file and a name pattern (vitest -t). */
  tests: { file: string; pattern: string }[];
  /** "fail": the tests must catch it. "pass": another layer still holds, so they must pass. */
  expect: "fail" | "pass";
}

const NO_OVERLAP_CONSTRAINT: Edit = {
  file: "server/db/migrations/0009_calendar.sql",
  find: `ALTER TABLE "appointments" ADD CONSTRAINT "appointments_no_overlap" EXCLUDE USING gist ("calendar_id" WITH =, tstzrange("blocked_start", "blocked_end", '[)') WITH &&) WHERE ("status" <> 'cancelled');`,
  replace: "SELECT 1;",
};
const NO_CALENDAR_LOCK: Edit = { file: "server/calendar/calendars.ts", find: `.for("update");`, replace: ";", all: true };
const NO_TOP_UP_LOCK: Edit = {
  file: "server/billing/top-ups.ts",
  find: `const [row] = await tx.select().from(topUps).where(eq(topUps.id, topUpId)).for("update");`,
  replace: "const [row] = await tx.select().from(topUps).where(eq(topUps.id, topUpId));",
};
const NO_UNIQUE_REFERENCE: Edit = {
  file: "server/db/migrations/0010_billing.sql",
  find: `CREATE UNIQUE INDEX "wallet_ledger_reference_unique" ON "wallet_ledger" USING btree ("reference") WHERE "wallet_ledger"."reference" is not null;`,
  replace: "SELECT 1;",
};
const NO_EVENT_KEY: Edit = {
  file: "server/webhooks/ingest.ts",
  find: "  const rows = await tx.insert(webhookEvents).values({ eventKey: key }).onConflictDoNothing().returning({ key: webhookEvents.eventKey });\n  return rows.length > 0;",
  replace: "  void tx;\n  void key;\n  return true;",
};
const NO_UNIQUE_CALL_DEBIT: Edit = {
  file: "server/db/migrations/0002_calls_numbers_wallet_webhooks.sql",
  find: `CREATE UNIQUE INDEX "wallet_ledger_call_unique" ON "wallet_ledger" USING btree ("call_id") WHERE "wallet_ledger"."call_id" is not null;`,
  replace: "SELECT 1;",
};

const REAPER_DROPS_REPORT: Edit = {
  file: "server/campaigns/reaper.ts",
  find: `} else if (message.type === "end-of-call-report") {`,
  replace: `} else if (message.type === "end-of-call-report" && message.cost === "never") {`,
};

const NO_MISSING_REPORTS: Edit = {
  file: "server/campaigns/dialler.ts",
  find: "report.reports += await completeMissingReports(",
  replace: "report.reports += 0 * (void completeMissingReports, 0); void (",
};

const bookings = { file: RACES, pattern: "ten bookings of one slot" };
const constraint = { file: RACES, pattern: "the database itself refuses overlapping" };
const perDay = { file: RACES, pattern: "max_per_day 3" };
const topUp = { file: RACES, pattern: "a top-up's paid event" };
const callEnd = { file: RACES, pattern: "a call's end reported to both processes" };
const lateReport = { file: RACES, pattern: "a campaign call whose end never came" };
const kills = { file: KILLS, pattern: "no contact dialled twice" };
const missingReport = { file: "tests/server/dialler-reaper.test.ts", pattern: "is completed from the provider's record a lease after its end" };

const MUTATIONS: Mutation[] = [
  { name: "no-overlap-constraint", removes: "the appointments' exclusion constraint", edits: [NO_OVERLAP_CONSTRAINT], tests: [constraint], expect: "fail" },
  { name: "no-overlap-constraint-bookings", removes: "the exclusion constraint (the calendar row lock still serialises bookings)", edits: [NO_OVERLAP_CONSTRAINT], tests: [bookings], expect: "pass" },
  { name: "no-calendar-lock", removes: "the calendar's row lock", edits: [NO_CALENDAR_LOCK], tests: [perDay], expect: "fail" },
  { name: "no-calendar-lock-bookings", removes: "the calendar's row lock (the exclusion constraint still refuses the overlap)", edits: [NO_CALENDAR_LOCK], tests: [bookings], expect: "pass" },
  { name: "no-lock-no-constraint", removes: "both the calendar's row lock and the exclusion constraint", edits: [NO_CALENDAR_LOCK, NO_OVERLAP_CONSTRAINT], tests: [bookings], expect: "fail" },
  { name: "no-top-up-lock", removes: "the top-up's row lock (the ledger's unique reference still refuses a second credit)", edits: [NO_TOP_UP_LOCK], tests: [topUp], expect: "pass" },
  { name: "no-unique-reference", removes: "the ledger's unique reference (the top-up's row lock still lets one path credit)", edits: [NO_UNIQUE_REFERENCE], tests: [topUp], expect: "pass" },
  { name: "no-top-up-lock-no-unique-reference", removes: "both the top-up's row lock and the ledger's unique reference", edits: [NO_TOP_UP_LOCK, NO_UNIQUE_REFERENCE], tests: [topUp], expect: "fail" },
  { name: "no-event-key", removes: "the webhook event's key (the ledger's unique call debit still refuses a second debit)", edits: [NO_EVENT_KEY], tests: [callEnd, lateReport], expect: "pass" },
  { name: "no-unique-call-debit", removes: "the ledger's unique call debit (the event's key still makes a repeated report no event)", edits: [NO_UNIQUE_CALL_DEBIT], tests: [callEnd, lateReport], expect: "pass" },
  { name: "no-event-key-no-unique-call-debit", removes: "both the webhook event's key and the ledger's unique call debit", edits: [NO_EVENT_KEY, NO_UNIQUE_CALL_DEBIT], tests: [callEnd, lateReport], expect: "fail" },
  { name: "no-missing-reports", removes: "the completion of calls whose end-of-call report never came", edits: [NO_MISSING_REPORTS], tests: [missingReport], expect: "fail" },
  { name: "reaper-drops-report", removes: "the end-of-call report from what the reaper reconciles (the call's cost and debit)", edits: [REAPER_DROPS_REPORT], tests: [lateReport, kills], expect: "fail" },
];

/** Tracked and untracked (not ignored) files of the working tree, copied to `to`. */
function copyProject(to: string): void {
  const listed = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: root, encoding: "utf8" });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  for (const file of listed.stdout.split("\0").filter(Boolean)) {
    if (!existsSync(join(root, file))) continue;
    mkdirSync(dirname(join(to, file)), { recursive: true });
    cpSync(join(root, file), join(to, file));
  }
  symlinkSync(join(root, "node_modules"), join(to, "node_modules"));
}

function apply(copy: string, edit: Edit): void {
  const path = join(copy, edit.file);
  const text = readFileSync(path, "utf8");
  const count = text.split(edit.find).length - 1;
  if (count === 0 || (!edit.all && count !== 1)) throw new Error(`the mutation no longer applies: ${edit.file} has ${count} of ${JSON.stringify(edit.find.slice(0, 80))}`);
  writeFileSync(path, edit.all ? text.split(edit.find).join(edit.replace) : text.replace(edit.find, edit.replace));
}

interface Outcome {
  test: string;
  status: string;
  message: string;
}

function runTests(copy: string, mutation: Mutation): Outcome[] {
  const outcomes: Outcome[] = [];
  for (const file of [...new Set(mutation.tests.map((test) => test.file))]) {
    const patterns = mutation.tests.filter((test) => test.file === file).map((test) => test.pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    const report = join(copy, "mutation-report.json");
    rmSync(report, { force: true });
    spawnSync(process.execPath, [join(root, "node_modules/vitest/vitest.mjs"), "run", file, "-t", patterns.join("|"), "--reporter=json", `--outputFile.json=${report}`], {
      cwd: copy,
      stdio: ["ignore", "ignore", "inherit"],
      env: {
        ...process.env,
        TEST_DATABASE_URL: process.env.TEST_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres",
        TEST_REDIS_URL: process.env.TEST_REDIS_URL || "redis://127.0.0.1:6379",
        ENGINES_REQUIRED: "1",
      },
      timeout: 15 * 60_000,
    });
    if (!existsSync(report)) {
      outcomes.push({ test: `${file} (${patterns.join(", ")})`, status: "no report", message: "vitest did not finish" });
      continue;
    }
    const result = JSON.parse(readFileSync(report, "utf8")) as {
      testResults: { message?: string; assertionResults: { title: string; status: string; failureMessages?: string[] }[] }[];
    };
    for (const test of mutation.tests.filter((t) => t.file === file)) {
      const found = result.testResults.flatMap((r) => r.assertionResults).find((a) => a.title.includes(test.pattern));
      const fileError = result.testResults.find((r) => r.message)?.message ?? "";
      outcomes.push({
        test: test.pattern,
        status: found?.status ?? (fileError ? "failed" : "not found"),
        message: (found?.failureMessages?.[0] ?? fileError).split("\n")[0]!.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"), "").slice(0, 160),
      });
    }
  }
  return outcomes;
}

const only = process.argv.find((arg) => arg.startsWith("--only="))?.slice("--only=".length);
const chosen = MUTATIONS.filter((mutation) => !only || mutation.name === only);
if (chosen.length === 0) {
  console.error(`no mutation named ${only}; there are: ${MUTATIONS.map((mutation) => mutation.name).join(", ")}`);
  process.exit(2);
}
const scratch = mkdtempSync(join(tmpdir(), "vap-mutations-"));
symlinkSync(resolve(root, "..", "shared"), join(scratch, "shared"));
let wrong = 0;
try {
  for (const mutation of chosen) {
    const copy = join(scratch, mutation.name);
    copyProject(copy);
    // The checkout's ../shared, as the tests expect it beside the project.
    const started = Date.now();
    for (const edit of mutation.edits) apply(copy, edit);
    const outcomes = runTests(copy, mutation);
    const seconds = Math.round((Date.now() - started) / 1000);
    console.log(`\n${mutation.name}: ${mutation.removes} (${seconds} s); expected: ${mutation.expect === "fail" ? "caught" : "still held"}`);
    for (const outcome of outcomes) {
      const ok = mutation.expect === "fail" ? outcome.status === "failed" : outcome.status === "passed";
      if (!ok) wrong++;
      console.log(`  ${ok ? "ok  " : "BAD "} ${outcome.status.padEnd(8)} ${outcome.test}${outcome.status === "failed" ? `: ${outcome.message}` : ""}`);
    }
    rmSync(copy, { recursive: true, force: true });
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
console.log(wrong ? `\n${wrong} outcome(s) not as expected` : "\nevery mutation caught where it must be, and held by the other layer where there is one");
process.exit(wrong ? 1 : 0);
