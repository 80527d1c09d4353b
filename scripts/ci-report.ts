// The closing report of .ci/run (its EXIT trap): each step's time and result, the ten slowest test files of
// the run (vitest's and the browser suite's), the count of tests passed, failed and skipped, and a check that
// every test file `npm test` skipped (those that need PostgreSQL or Redis) ran on the engines with nothing
// skipped. Reads what the steps left in test-results/; a step that never ran is simply absent. Exits non-zero
// only when that check fails (the steps' own failures already fail the run).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const results = join(root, "test-results");
const total = Number(process.argv[2] ?? 0);

interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests?: number;
  testResults: {
    name: string;
    startTime: number;
    endTime: number;
    message?: string;
    assertionResults: { status: string; fullName: string; failureMessages?: string[] }[];
  }[];
}

function readJson<T>(name: string): T | null {
  const path = join(results, name);
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(readFileSync(path, "utf8")) as T;
  } catch {
    return null;
  }
}

const pad = (text: string, width: number) => (text.length >= width ? text : text + " ".repeat(width - text.length));
const minutes = (seconds: number) => `${Math.floor(seconds / 60)}:${String(Math.round(seconds % 60)).padStart(2, "0")}`;

// Steps.
const steps = existsSync(join(results, "steps.tsv"))
  ? readFileSync(join(results, "steps.tsv"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        const [name, seconds, result] = line.split("\t");
        return { name: name!, seconds: Number(seconds), result: result! };
      })
  : [];
console.log("\n== CI report");
console.log(`${pad("step", 18)}${pad("time", 9)}result`);
for (const step of steps) console.log(`${pad(step.name, 18)}${pad(`${step.seconds} s`, 9)}${step.result}`);
console.log(`${pad("whole run", 18)}${pad(`${total} s`, 9)}(${minutes(total)} of the 40:00 allowed)`);

// The slowest files.
const files: { file: string; seconds: number; run: string }[] = [];
const unit = readJson<VitestReport>("vitest.json");
const engines = readJson<VitestReport>("vitest-engines.json");
for (const [report, run] of [
  [unit, "npm test"],
  [engines, "engines"],
] as const) {
  for (const file of report?.testResults ?? []) files.push({ file: relative(root, file.name), seconds: (file.endTime - file.startTime) / 1000, run });
}
// node:test's TAP from the browser suite: top-level "ok N - name" then "duration_ms: M" in its block. Node 20 does
// not name the file, so each test is found in tests/e2e by its name and its file's tests are added up.
const e2eLog = existsSync(join(results, "test-e2e.log")) ? readFileSync(join(results, "test-e2e.log"), "utf8").split("\n") : [];
const e2eDir = join(root, "tests/e2e");
const e2eSources = existsSync(e2eDir)
  ? readdirSync(e2eDir)
      .filter((name) => name.endsWith(".e2e.ts"))
      .map((name) => ({ file: `tests/e2e/${name}`, text: readFileSync(join(e2eDir, name), "utf8") }))
  : [];
const e2eFiles = new Map<string, number>();
e2eLog.forEach((line, index) => {
  const match = /^(?:not )?ok \d+ - (.*?)(?: # .*)?$/.exec(line);
  if (!match) return;
  const duration = e2eLog
    .slice(index + 1, index + 6)
    .map((next) => /^\s+duration_ms: ([\d.]+)/.exec(next))
    .find(Boolean);
  const name = match[1]!.replace(/\\#/g, "#").replace(/\\\\/g, "\\");
  const source = e2eSources.find((candidate) => candidate.text.includes(JSON.stringify(name)) || candidate.text.includes(`"${name}"`) || candidate.text.includes(`\`${name}\``));
  if (duration && source) e2eFiles.set(source.file, (e2eFiles.get(source.file) ?? 0) + Number(duration[1]) / 1000);
});
for (const [file, seconds] of e2eFiles) files.push({ file, seconds, run: "browser" });
if (files.length > 0) {
  console.log("\nthe ten slowest test files (each file's own time; files run two at a time)");
  for (const file of files.sort((a, b) => b.seconds - a.seconds).slice(0, 10)) console.log(`${pad(`${file.seconds.toFixed(1)} s`, 10)}${pad(file.run, 10)}${file.file}`);
}

// Counts.
let passed = 0;
let failed = 0;
let skipped = 0;
for (const report of [unit, engines]) {
  if (!report) continue;
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + (report.numTodoTests ?? 0);
}
const tap = (key: string) => Number([...e2eLog.join("\n").matchAll(new RegExp(`^# ${key} (\\d+)$`, "gm"))].at(-1)?.[1] ?? 0);
passed += tap("pass");
failed += tap("fail");
skipped += tap("skipped");
console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped (npm test, the engines, the browser suite)`);

// What failed, by name, with the first lines of its error: the step logs hold the rest.
const failures: string[] = [];
for (const [report, run] of [
  [unit, "npm test"],
  [engines, "engines"],
] as const) {
  for (const file of report?.testResults ?? []) {
    const where = relative(root, file.name);
    const failedTests = file.assertionResults.filter((test) => test.status === "failed");
    for (const test of failedTests) failures.push(`${run}: ${where} > ${test.fullName}\n    ${firstLines(test.failureMessages?.[0])}`);
    // A file that failed outside any test (an import, a hook) has no failed test to name.
    if (failedTests.length === 0 && file.message) failures.push(`${run}: ${where} (the file itself)\n    ${firstLines(file.message)}`);
  }
}
e2eLog.forEach((line) => {
  const match = /^not ok \d+ - (.*?)(?: # .*)?$/.exec(line);
  if (match) failures.push(`browser: ${match[1]}`);
});
function firstLines(message: string | undefined): string {
  // eslint-disable-next-line no-control-regex -- vitest's messages may carry ANSI colours
  const plain = (message ?? "(no message)").replace(/\u001b\[[0-9;]*m/g, "");
  return plain.split("\n").filter((line) => line.trim()).slice(0, 3).join("\n    ");
}
if (failures.length > 0) {
  console.log(`\nfailed (${failures.length}):`);
  for (const failure of failures) console.log(`  ${failure}`);
}

// What npm test skipped must have run on the engines, with nothing skipped there.
let problem = false;
if (unit) {
  const skippedFiles = unit.testResults.filter((file) => file.assertionResults.some((test) => test.status === "skipped" || test.status === "pending")).map((file) => relative(root, file.name));
  if (skippedFiles.length > 0) {
    const ranOnEngines = new Map((engines?.testResults ?? []).map((file) => [relative(root, file.name), file.assertionResults]));
    const missing = skippedFiles.filter((file) => {
      const tests = ranOnEngines.get(file);
      return !tests || tests.length === 0 || tests.some((test) => test.status !== "passed");
    });
    if (missing.length > 0) {
      problem = true;
      console.log(`npm test skipped tests in ${missing.join(", ")}, and the engines run did not pass them all`);
    } else {
      console.log(`npm test skipped tests in ${skippedFiles.length} files (they need PostgreSQL or Redis); each passed on the engines with none skipped`);
    }
  }
}
process.exit(problem ? 1 : 0);
