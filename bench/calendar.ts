// `npm run bench:calendar [-- --quick | --smoke]`: the agent's booking tools at 10,000 appointments (issue 14 §3).
// Also rows of `npm run bench`'s table (bench/index.ts calls benchCalendar).
//
// The caller waits in silence while a tool call is answered, so the answer must be fast: p95 ≤ 60 ms for
// check_availability and book_appointment (5% of Vapi's 1,200 ms turn budget).
//
// One organisation with a booking agent (appointment_enable) whose calendar is open every day 08:00–20:00
// New York time in 15-minute slots, bookable 365 days ahead, and 10,000 appointments: 4,000 over the last
// 180 days and 6,000 spread over the bookable year (random free slots, so every day is partly booked).
// Then, through the app as built for production (buildApp, in this process, app.inject: routing, the
// HMAC check of the signed webhook, JSON parsing, the call lookup, the tool handler, the answer kept in
// tool_call_answers, serialization; no socket), one request at a time, alternating:
//   - the framework floor: GET /api/__bench/floor (a constant, bench/floor.ts);
//   - check_availability for a random day of the next 60 (a distinct tool call each time, so no kept answer is reused);
//   - book_appointment at a random free slot (each books a new appointment: the table grows as it runs).
// Each answer is checked ("Open times on …" / "Booked: …"); any other answer marks the row MISSED.
// In-process rather than a child process with a socket: what is measured is one caller's wait, and a
// socket adds the same constant to the floor and the routes alike.
//
// PGlite in memory, or PostgreSQL when TEST_DATABASE_URL is set (a fresh database, dropped at the end).
// --quick: 60 requests of each instead of 300. --smoke (CI): 500 appointments and 5 requests of each, to
// show the bench still works (its figures say nothing; a missed budget is printed, never fatal).
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import type { FastifyInstance } from "fastify";
import { agentConfigSchema } from "../contract/agent";
import { availabilityInputSchema } from "../contract/calendar";
import { buildApp } from "../server/app";
import { saveAvailability } from "../server/calendar/calendars";
import { addDays, localDate, localIso, startOfLocalDay } from "../server/calendar/spoken-time";
import { loadConfig } from "../server/config";
import { orgScope } from "../server/data/orgScope";
import type { Database } from "../server/db/client";
import { agents, appointments, calls, organizations } from "../server/db/schema";
import { VAPI_WEBHOOK_PATH } from "../server/webhooks/paths";
import { signedHeaders } from "../server/webhooks/signature";
import { addFloorRoute, FLOOR_PATH } from "./floor";
import { benchMode, byMode, onFreshPostgres, onPglite, percentile, printAlone, type BenchMode } from "./measure";

export interface CalendarBenchRow {
  figure: string;
  measured: string;
  budget: string;
  /** null: a figure shown for context (or a section title when `measured` is empty). */
  ok: boolean | null;
}

export const CALENDAR_BUDGET_P95_MS = 60;
const ZONE = "America/New_York";
const SLOT_MINUTES = 15;
const OPEN = { start: "08:00", end: "20:00" };
const SLOTS_PER_DAY = ((20 - 8) * 60) / SLOT_MINUTES;
const DAYS_AHEAD = 365;
const PAST = 4_000;
const FUTURE = 6_000;
const SECRET = "bench-calendar-webhook-secret-0123456789";
const WEBHOOK_URL = `/api${VAPI_WEBHOOK_PATH}`;
const MINUTE = 60_000;

interface Setup {
  orgId: string;
  agentId: string;
  calls: { callId: string; providerCallId: string; customerNumber: string }[];
  /** Free slot starts (ISO with offset), shuffled: each booking takes the next. */
  free: string[];
  loadSeconds: number;
}

/** A deterministic shuffle (the same run twice books the same slots). */
function shuffle<T>(list: T[], seed = 42): T[] {
  let state = seed;
  const next = () => ((state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [list[i], list[j]] = [list[j]!, list[i]!];
  }
  return list;
}

/** The start of slot `index` of local day `date`. */
const slotStart = (date: string, index: number) => new Date(startOfLocalDay(date, ZONE).getTime() + (8 * 60 + index * SLOT_MINUTES) * MINUTE);

/** Appointments loaded: `past` over the last 180 days, `future` over the bookable year. */
interface Seed {
  past: number;
  future: number;
}

async function setUp(database: Database, { past: pastCount, future: futureCount }: Seed): Promise<Setup> {
  const started = performance.now();
  const orgId = `org_bench_cal_${randomUUID().slice(0, 8)}`;
  await database.db.insert(organizations).values({ id: orgId, name: "Bench Calendar", slug: orgId, timezone: ZONE });
  const agentId = randomUUID();
  await database.db.insert(agents).values({ id: agentId, orgId, name: "Booking desk", config: agentConfigSchema.parse({ agent_name: "Booking desk", appointment_enable: true }) });
  const calendar = await saveAvailability(
    database.db,
    orgId,
    availabilityInputSchema.parse({
      timezone: ZONE,
      weekly: ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].map((day) => ({ day, ...OPEN })),
      slot_minutes: SLOT_MINUTES,
      min_notice_minutes: 0,
      max_days_ahead: DAYS_AHEAD,
    }),
  );

  // 10,000 appointments on distinct slots: the last 180 days, and the bookable year from tomorrow on.
  const today = localDate(new Date(), ZONE);
  const slotsOf = (from: number, days: number) => Array.from({ length: days * SLOTS_PER_DAY }, (_, i) => ({ date: addDays(today, from + Math.floor(i / SLOTS_PER_DAY)), index: i % SLOTS_PER_DAY }));
  const past = shuffle(slotsOf(-180, 180), 7).slice(0, pastCount);
  const future = shuffle(slotsOf(1, DAYS_AHEAD - 1), 11);
  const taken = future.slice(0, futureCount);
  const rows = [...past, ...taken].map(({ date, index }, i) => {
    const start = slotStart(date, index);
    const end = new Date(start.getTime() + SLOT_MINUTES * MINUTE);
    return {
      id: randomUUID(),
      calendarId: calendar.id!,
      agentId,
      title: `Appointment ${i + 1}`,
      startAt: start,
      endAt: end,
      blockedStart: start,
      blockedEnd: end,
      customerName: `Customer ${i + 1}`,
      customerNumber: `+1212${String(5_000_000 + i).padStart(7, "0")}`,
      status: "booked",
      source: i % 3 === 0 ? "agent" : "console",
    };
  });
  const scope = orgScope(database.db, orgId);
  for (let i = 0; i < rows.length; i += 2_000) await scope.insertMany(appointments, rows.slice(i, i + 2_000));
  await database.db.execute("analyze appointments");

  const callRows = Array.from({ length: 20 }, (_, i) => ({ callId: randomUUID(), providerCallId: `vapi-bench-${randomUUID()}`, customerNumber: `+1646${String(5_550_000 + i).padStart(7, "0")}` }));
  for (const call of callRows) {
    await scope.insert(calls, { id: call.callId, type: "outbound", status: "in-progress", agentId, customerNumber: call.customerNumber, customerName: "Bench caller", providerCallId: call.providerCallId });
  }
  const free = future.slice(futureCount).map(({ date, index }) => localIso(slotStart(date, index), ZONE));
  return { orgId, agentId, calls: callRows, free, loadSeconds: (performance.now() - started) / 1000 };
}

/** A signed tool-calls message of one tool call, as Vapi sends it (arguments as a JSON string). */
function toolCall(setup: Setup, call: Setup["calls"][number], name: string, args: Record<string, unknown>) {
  const id = `call_${randomUUID().replace(/-/g, "").slice(0, 24)}`;
  const toolCallEntry = { id, type: "function", function: { name, arguments: JSON.stringify(args) } };
  const body = JSON.stringify({
    message: {
      type: "tool-calls",
      timestamp: Date.now(),
      toolCallList: [toolCallEntry],
      toolWithToolCallList: [{ type: "function", toolCall: toolCallEntry }],
      call: {
        id: call.providerCallId,
        type: "outboundPhoneCall",
        customer: { number: call.customerNumber },
        assistantOverrides: { metadata: { callId: call.callId, orgId: setup.orgId, agentId: setup.agentId } },
      },
    },
  });
  return body;
}

interface Timing {
  p50: number;
  p95: number;
  p99: number;
  bad: number;
  n: number;
}

const timing = (times: number[], bad: number): Timing => {
  const sorted = [...times].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99), bad, n: sorted.length };
};

async function measure(app: FastifyInstance, setup: Setup, iterations: number, warmup: number) {
  const post = async (body: string) => {
    const response = await app.inject({ method: "POST", url: WEBHOOK_URL, headers: { "content-type": "application/json", ...signedHeaders(SECRET, body) }, payload: body });
    const result = response.statusCode === 200 ? ((response.json() as { results: { result?: string }[] }).results[0]?.result ?? "") : "";
    return result;
  };
  const today = localDate(new Date(), ZONE);
  let n = 0;
  const callOf = () => setup.calls[n++ % setup.calls.length]!;
  const runs = {
    floor: async () => (await app.inject({ method: "GET", url: FLOOR_PATH })).statusCode === 200,
    check: async () => (await post(toolCall(setup, callOf(), "check_availability", { date: addDays(today, 1 + Math.floor(Math.random() * 60)) }))).includes("Open times on"),
    book: async () => {
      const start = setup.free.pop();
      if (!start) throw new Error("the bench ran out of free slots");
      return (await post(toolCall(setup, callOf(), "book_appointment", { start, customer_name: "Bench Caller" }))).startsWith("Booked: ");
    },
  };
  const times = { floor: [] as number[], check: [] as number[], book: [] as number[] };
  const bad = { floor: 0, check: 0, book: 0 };
  for (let i = 0; i < warmup + iterations; i++) {
    for (const name of ["floor", "check", "book"] as const) {
      const started = performance.now();
      const ok = await runs[name]();
      const elapsed = performance.now() - started;
      if (i < warmup) continue;
      times[name].push(elapsed);
      if (!ok) bad[name]++;
    }
  }
  return { floor: timing(times.floor, bad.floor), check: timing(times.check, bad.check), book: timing(times.book, bad.book) };
}

const ms = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(1));

/** The calendar rows of the bench table (a section title first). */
export async function benchCalendar(options: { mode: BenchMode; pgUrl: string | null; log?: (line: string) => void }): Promise<CalendarBenchRow[]> {
  const iterations = byMode(options.mode, { full: 300, quick: 60, smoke: 5 });
  const warmup = byMode(options.mode, { full: 30, quick: 10, smoke: 1 });
  const seed: Seed = options.mode === "smoke" ? { past: 200, future: 300 } : { past: PAST, future: FUTURE };
  const appointmentCount = seed.past + seed.future;
  const log = options.log ?? ((line: string) => process.stderr.write(`bench:calendar ${line}\n`));
  const run = async (database: Database): Promise<CalendarBenchRow[]> => {
    const config = loadConfig({
      NODE_ENV: "production",
      BETTER_AUTH_SECRET: randomUUID() + randomUUID(),
      RATE_LIMIT_PER_MINUTE: "1000000",
      LOG_LEVEL: "silent",
      SEED_DEMO: "false",
      VAPI_WEBHOOK_SECRET: SECRET,
      PUBLIC_URL: "http://127.0.0.1:3000",
      CONSOLE_DIR: "/nonexistent/console",
      DATA_DIR: `/tmp/vap-bench-calendar-${process.pid}`,
    });
    const app = await buildApp({ config, database, logger: false });
    addFloorRoute(app);
    try {
      log(`loading ${appointmentCount.toLocaleString("en")} appointments`);
      const setup = await setUp(database, seed);
      log(`${iterations} requests each of the floor, check_availability and book_appointment, alternating`);
      const result = await measure(app, setup, iterations, warmup);
      const engine = database.kind === "postgres" ? "PostgreSQL" : "PGlite (in memory)";
      const floor = result.floor;
      const row = (name: string, t: Timing): CalendarBenchRow => ({
        figure: `${name}: latency p50 / p95 / p99`,
        measured: `${ms(t.p50)} / ${ms(t.p95)} / ${ms(t.p99)} ms (floor ${ms(floor.p50)} / ${ms(floor.p95)} / ${ms(floor.p99)})${t.bad ? ` [${t.bad} of ${t.n} wrong answers]` : ""}`,
        budget: `p95 ≤ ${CALENDAR_BUDGET_P95_MS} ms`,
        ok: t.bad === 0 && t.p95 <= CALENDAR_BUDGET_P95_MS,
      });
      return [
        {
          figure: `Booking tools on ${engine}${database.kind === "postgres" ? "" : " — TEST_DATABASE_URL is not set, so NOT PostgreSQL"}: signed POST ${WEBHOOK_URL} (tool-calls) through app.inject, one at a time, ${iterations} each, alternating with the floor (${FLOOR_PATH})`,
          measured: "",
          budget: "",
          ok: null,
        },
        { figure: "appointments in the organisation (loaded)", measured: `${appointmentCount.toLocaleString("en")}${options.mode === "smoke" ? " (--smoke)" : ""} (+${iterations + warmup} booked by the run) in ${setup.loadSeconds.toFixed(1)} s`, budget: "—", ok: null },
        row("check_availability (a day of the next 60)", result.check),
        row("book_appointment (a free slot)", result.book),
      ];
    } finally {
      await app.close();
    }
  };
  return options.pgUrl ? onFreshPostgres(options.pgUrl, run) : onPglite(run);
}

// Alone: `npm run bench:calendar [-- --quick | --smoke]`.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const mode = benchMode();
  const rows = await benchCalendar({ mode, pgUrl: process.env.TEST_DATABASE_URL || null });
  printAlone("calendar", mode, rows, { figure: 60, measured: 70 });
}
