/**
 * The campaign dialler (issue 13): places campaigns' calls, at most max_concurrency per campaign and
 * ORG_CONCURRENT_CALLS per organisation, counted in the database across every process that runs it.
 *
 * Every API process may run one (DIALLER_ENABLED, default on). Nothing is owned by a process: work is
 * shared through the database. Each tick:
 *
 * 1. scheduled campaigns whose start_at has come start running;
 * 2. contacts whose call ended without being settled are settled (reaper.ts settleMissed);
 * 3. for each running campaign, a claim (claim.ts: one short transaction, the campaign's claim lock
 *    tried — another process claiming for it means a wake-up shortly instead — then the organisation's
 *    row FOR NO KEY UPDATE, the campaign's row FOR NO KEY UPDATE SKIP LOCKED, contacts FOR UPDATE SKIP
 *    LOCKED) records the calls to
 *    place — call rows queued with our ids, contacts in_progress with attempts + 1 and a lease — and
 *    commits; then the provider is asked to place them, with our call id as metadata, giving up after a
 *    third of the lease;
 * 4. contacts whose lease ran out are reaped (reaper.ts: the provider is asked about the call by our id);
 *    calls of any kind whose end-of-call report has not come a lease after their end are completed from the
 *    provider's record (reaper.ts completeMissingReports), so a report lost with its poster is still charged;
 * 5. (once a minute) order follow-up's attribution sweep (server/orders/sweep.ts).
 *
 * Exactly once: a contact is dialled only by the process whose claim committed it in_progress, for the
 * attempt the claim counted. Its call is settled by its end (the webhook ingest's hook, in the same
 * transaction) or, if that never comes, by the reaper from the provider's answer. An attempt is given
 * back (attempts - 1, queued again) only when the provider never received the call: it refused it for
 * an account or configuration reason (4xx; the campaign pauses), it asked us to slow down (429), or the
 * reaper learnt it never arrived (the placer died between its claim and its request). kill -9 at any
 * point leaves the contact in_progress with a lease, which the reaper resolves once it runs out.
 *
 * Placing: a provider refusal for an account or configuration reason (4xx) removes the call, gives the
 * attempt back and pauses the campaign (provider, with the provider's sentence); 429 gives the attempt
 * back for THROTTLE_RETRY_MS; 5xx or a network failure ends the call with PLACING_FAILED_ENDED_REASON (a
 * failed attempt: the retry rules apply, and the circuit breaker counts it); a request given up at our
 * deadline is left to the reaper, which asks the provider once the lease runs out.
 *
 * The loop runs a tick every DIALLER_INTERVAL_MS, and at once when a campaign changes or one of its calls
 * ends in this process (CampaignSignals). Ticks never overlap in one process; stop() waits for the one
 * under way (and the requests it made).
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { performance } from "node:perf_hooks";
import { and, eq, lte, sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { assertToolsValid, assistantIdFor, phoneCallRequest } from "../calls/service";
import type { AppConfig } from "../config";
import type { Db } from "../db/client";
import { calls, campaigns } from "../db/schema";
import { ApiError } from "../plugins/errors";
import { CallGivenUpError, VoiceProviderError, type VoiceProvider } from "../voice/types";
import { lockOrganisationForCalls, walletPolicy } from "../wallet/wallet";
import type { IngestContext } from "../webhooks/ingest";
import { createToolRegistry, type ToolRegistry } from "../webhooks/tools";
import { autoPause, PAUSE_REASONS } from "./auto-pause";
import { claimCampaign, type ClaimedCall, type ClaimResult, type ClaimSettings } from "./claim";
import { recordCampaignEvent } from "./events";
import { campaignToolHandlers, OPT_OUT_TOOL } from "./opt-out";
import { completeMissingReports, giveBackAttempt, reapExpired, settleMissed } from "./reaper";
import { settleCampaignCall, settleOnCallEnded } from "./settle";
import type { CampaignSignals } from "./signals";
import { FOLLOW_UP_KIND } from "../orders/follow-up";
import { ORDER_OUTCOME_TOOL, orderToolHandlers } from "../orders/outcome";
import { ATTRIBUTION_SWEEP_INTERVAL_MS, sweepAttribution } from "../orders/sweep";

/** The ended reason of a call whose placing request failed (5xx, network): a failed attempt (call-outcome's "error" rule). */
export const PLACING_FAILED_ENDED_REASON = "call.start.error-provider-request-failed";
/** A contact whose call the provider asked us to slow down for (429) waits this long. */
export const THROTTLE_RETRY_MS = 30_000;
/** How long a wake-up waits for others before its tick (each claim takes the organisation's row: fewer, fuller claims). */
const WAKE_COALESCE_MS = 10;

export interface DiallerLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/**
 * One dial's overhead (bench:campaign reads these), in ms up to its provider request, and where it went:
 * the parts add up to overheadMs (lockWaitMs includes beginMs).
 */
export interface DialTiming {
  campaignId: string;
  callId: string;
  /** From the start of its claim (waiting for the organisation's row included). */
  overheadMs: number;
  /** Of which a pooled connection and BEGIN. */
  beginMs: number;
  /** From the start of its claim until the organisation's row was ours (other writers of its calls: webhooks, other claims). */
  lockWaitMs: number;
  /** The campaign's row with its facts, read and checked (claim.ts steps 2 to 6). */
  readMs: number;
  /** Picking and checking the contacts (step 7). */
  pickMs: number;
  /** Writing the calls and contacts (step 8). */
  writeMs: number;
  /** COMMIT. */
  commitMs: number;
  /** From its claim's commit. */
  afterClaimMs: number;
  /** The calls its claim took. */
  claimSize: number;
}

export interface DiallerOptions {
  db: Db;
  voice: VoiceProvider;
  config: AppConfig;
  log: DiallerLog;
  signals?: CampaignSignals;
  /** The tools a reaped call's tool calls are answered with (default: the campaigns' opt-out and the order-outcome tool). */
  tools?: ToolRegistry;
  /** This dialler's name in leased_by (default host:pid:random). */
  id?: string;
  /** The clock (tests). */
  now?: () => number;
  onDial?: (timing: DialTiming) => void;
}

export interface TickReport {
  started: number;
  claimed: number;
  placed: number;
  refused: number;
  failed: number;
  paused: string[];
  completed: string[];
  settled: number;
  givenBack: number;
  /** End-of-call reports that never came, completed from the provider's record. */
  reports: number;
}

export interface Dialler {
  readonly id: string;
  /** Runs one tick (after the one under way, if any); answers what it did. */
  tick(): Promise<TickReport>;
  /** Starts the interval and the wake-ups. */
  start(): void;
  /** Stops them and waits for the tick under way. */
  stop(): Promise<void>;
}

type Claimed = Extract<ClaimResult, { kind: "claimed" }>;

const emptyReport = (): TickReport => ({ started: 0, claimed: 0, placed: 0, refused: 0, failed: 0, paused: [], completed: [], settled: 0, givenBack: 0, reports: 0 });

/** What a failed placing request means: refused (4xx: account, configuration), throttled (429), or failed. */
function placingFailure(error: unknown): "refused" | "throttled" | "failed" {
  if (error instanceof ApiError && error.statusCode < 500) return "refused";
  if (!(error instanceof VoiceProviderError)) return "failed";
  const status = error.providerStatus;
  if (status === 429) return "throttled";
  return status !== null && status >= 400 && status < 500 ? "refused" : "failed";
}

const detailOf = (error: unknown): string => {
  if (error instanceof VoiceProviderError) return error.detail;
  if (!(error instanceof Error)) return String(error);
  // drizzle's "Failed query: …" carries the database's own error as its cause.
  return error.cause instanceof Error ? `${error.message.split("\n")[0]}: ${error.cause.message}` : error.message;
};

export function createDialler(options: DiallerOptions): Dialler {
  const { db, voice, config, log, signals } = options;
  const id = options.id ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const now = options.now ?? (() => Date.now());
  const leaseMs = config.campaigns.leaseSeconds * 1000;
  const tools = options.tools ?? createToolRegistry({ ...campaignToolHandlers(db), ...orderToolHandlers(db) });
  const settings: ClaimSettings = {
    diallerId: id,
    leaseMs,
    orgConcurrentCalls: config.campaigns.orgConcurrentCalls,
    defaultPlan: config.billing.defaultPlan,
    wallet: walletPolicy(config),
    isSandbox: voice.mode === "sandbox",
  };
  const ingest: IngestContext = { db, wallet: settings.wallet, isSandbox: settings.isSandbox, onCallEnded: settleOnCallEnded };

  /** Starts the scheduled campaigns whose start_at has come. */
  async function startDue(report: TickReport): Promise<void> {
    const at = new Date(now());
    const due = await db
      .select({ id: campaigns.id, orgId: campaigns.orgId })
      .from(campaigns)
      .where(and(eq(campaigns.status, "scheduled"), lte(campaigns.startAt, at)));
    for (const campaign of due) {
      const started = await db.transaction(async (tx) => {
        await lockOrganisationForCalls(tx, campaign.orgId);
        const [row] = await tx.select().from(campaigns).where(eq(campaigns.id, campaign.id)).for("update", { skipLocked: true });
        if (!row || row.status !== "scheduled" || !row.startAt || row.startAt > at) return false;
        await tx.update(campaigns).set({ status: "running", startedAt: row.startedAt ?? at, updatedAt: at }).where(eq(campaigns.id, row.id));
        await recordCampaignEvent(tx, { orgId: row.orgId, campaignId: row.id, kind: "started", detail: `Started: its start time (${row.startAt.toISOString()}) came.`, at });
        return true;
      });
      if (started) {
        report.started++;
        signals?.changed(campaign.id);
      }
    }
  }

  /** Gives the attempt back for a call the provider refused (and pauses the campaign when `pause` says why). */
  async function refuse(claim: Claimed, call: ClaimedCall, readyAt: Date, pause: string | null): Promise<void> {
    const at = new Date(now());
    await db.transaction(async (tx) => {
      await lockOrganisationForCalls(tx, claim.campaign.orgId);
      if (pause) await tx.select({ id: campaigns.id }).from(campaigns).where(eq(campaigns.id, claim.campaign.id)).for("update");
      await giveBackAttempt(tx, { orgId: claim.campaign.orgId, callId: call.callId, contactId: call.contact.id, readyAt, now: at });
      if (pause) await autoPause(tx, claim.campaign, "provider", pause, at);
    });
  }

  /** Ends a call whose placing request failed (a failed attempt) and settles its contact. */
  async function fail(claim: Claimed, call: ClaimedCall): Promise<void> {
    const at = new Date(now());
    await db.transaction(async (tx) => {
      await lockOrganisationForCalls(tx, claim.campaign.orgId);
      const [ended] = await tx
        .update(calls)
        .set({ status: "ended", endedReason: PLACING_FAILED_ENDED_REASON, endedAt: at, updatedAt: at })
        .where(and(eq(calls.id, call.callId), eq(calls.orgId, claim.campaign.orgId), eq(calls.status, "queued")))
        .returning();
      if (ended) await settleCampaignCall(tx, ended, { force: true, now: at.getTime() });
    });
  }

  /** Asks the provider to place the claimed calls (after the claim committed). */
  async function place(claim: Claimed, timing: { startedAt: number; committedAt: number }, report: TickReport): Promise<void> {
    const { campaign, agent, phoneNumber } = claim;
    // Given up well before the lease runs out (a third of it from the claim), so the reaper never finds a
    // request still on its way: the signal aborts fetch, placeBy lets the provider refuse a late arrival.
    const placeBy = claim.leaseUntil.getTime() - Math.floor((leaseMs * 2) / 3);
    const signal = AbortSignal.timeout(Math.max(1, placeBy - Date.now()));
    const givenUp = (error?: unknown) => error instanceof CallGivenUpError || signal.aborted || Date.now() > placeBy;
    let assistantId: string | null = null;
    try {
      assertToolsValid(agent);
      if (voice.mode === "vapi" && !phoneNumber.providerNumberId) {
        throw new VoiceProviderError(`The caller number ${phoneNumber.number} is not set up at Vapi yet: open it in Phone Numbers and save it again.`, 400);
      }
      assistantId = await assistantIdFor({ db, voice }, agent);
    } catch (error) {
      await Promise.all(claim.calls.map((call) => settlePlacing(claim, call, error, report)));
      return;
    }
    const placedIds: { callId: string; providerCallId: string }[] = [];
    await Promise.all(
      claim.calls.map(async (call) => {
        const contact = call.contact;
        const variableValues = { ...contact.variables, ...(contact.name ? { name: contact.name } : {}) };
        const request = {
          ...phoneCallRequest(call.callId, agent, assistantId, phoneNumber, { customer: { number: contact.number, name: contact.name }, variableValues }),
          campaign: { campaignId: campaign.id, contactId: contact.id, attempt: call.attempt },
          optOutTool: OPT_OUT_TOOL,
          // Order follow-up calls report what the customer decided (server/orders/outcome.ts).
          ...(campaign.kind === FOLLOW_UP_KIND ? { orderOutcomeTool: ORDER_OUTCOME_TOOL } : {}),
          signal,
          placeBy: new Date(placeBy),
        };
        if (options.onDial) {
          const at = performance.now();
          const { marks } = claim;
          options.onDial({
            campaignId: campaign.id,
            callId: call.callId,
            overheadMs: at - timing.startedAt,
            beginMs: marks.beganAt - timing.startedAt,
            lockWaitMs: marks.lockedAt - timing.startedAt,
            readMs: marks.readAt - marks.lockedAt,
            pickMs: marks.pickedAt - marks.readAt,
            writeMs: marks.writtenAt - marks.pickedAt,
            commitMs: timing.committedAt - marks.writtenAt,
            afterClaimMs: at - timing.committedAt,
            claimSize: claim.calls.length,
          });
        }
        let providerCallId: string;
        try {
          if (givenUp()) throw new CallGivenUpError();
          providerCallId = (await voice.startPhoneCall(request)).providerCallId;
        } catch (error) {
          // Given up at our deadline: the provider may or may not have it; the reaper asks once the lease runs out.
          if (givenUp(error)) {
            log.warn({ callId: call.callId, campaignId: campaign.id }, "a campaign call's placing request was given up; the reaper will ask the provider about it");
            return;
          }
          await settlePlacing(claim, call, error, report);
          return;
        }
        report.placed++;
        placedIds.push({ callId: call.callId, providerCallId });
      }),
    );
    try {
      await recordProviderCallIds(campaign.orgId, placedIds);
    } catch (error) {
      // The calls are placed; their webhooks carry both ids and fill these in.
      log.warn({ err: error, campaignId: campaign.id }, "the provider's ids of placed campaign calls were not recorded");
    }
  }

  /** Keeps the provider's ids of placed calls, in one statement (a webhook may have set one already: the same value either way). */
  async function recordProviderCallIds(orgId: string, placed: { callId: string; providerCallId: string }[]): Promise<void> {
    if (placed.length === 0) return;
    const values = sql.join(
      placed.map((one) => sql`(${one.callId}::uuid, ${one.providerCallId})`),
      sql`, `,
    );
    await db.transaction(async (tx) => {
      // The organisation's row before the calls' (their triggers lock it after): see lockOrganisationForCalls.
      await lockOrganisationForCalls(tx, orgId);
      await tx.execute(sql`
        update calls set provider_call_id = v.provider_call_id, updated_at = ${new Date(now()).toISOString()}::timestamptz
        from (values ${values}) as v(id, provider_call_id)
        where calls.id = v.id and calls.org_id = ${orgId} and calls.provider_call_id is null`);
    });
  }

  async function settlePlacing(claim: Claimed, call: ClaimedCall, error: unknown, report: TickReport): Promise<void> {
    const kind = placingFailure(error);
    const detail = detailOf(error);
    try {
      if (kind === "refused") {
        report.refused++;
        await refuse(claim, call, new Date(now()), PAUSE_REASONS.provider(detail));
        if (!report.paused.includes(claim.campaign.id)) report.paused.push(claim.campaign.id);
        signals?.changed(claim.campaign.id);
      } else if (kind === "throttled") {
        report.refused++;
        await refuse(claim, call, new Date(now() + THROTTLE_RETRY_MS), null);
      } else {
        report.failed++;
        await fail(claim, call);
      }
      log.warn({ callId: call.callId, campaignId: claim.campaign.id, kind, detail }, "the voice provider did not place a campaign call");
    } catch (failure) {
      // Left in_progress with its lease: the reaper resolves it.
      log.error({ err: failure, callId: call.callId }, "recording a campaign call's placing failure failed");
    }
  }

  let lastAttributionSweep = Number.NEGATIVE_INFINITY;
  /** Calls asked about for their missing end-of-call report, and when (at most once a lease each). */
  const askedForReports = new Map<string, number>();

  async function runTick(): Promise<TickReport> {
    const report = emptyReport();
    await step("starting scheduled campaigns", () => startDue(report));
    await step("settling ended calls", async () => {
      report.settled += (await settleMissed({ db }, now())).length;
    });

    const running = await db.select({ id: campaigns.id, orgId: campaigns.orgId }).from(campaigns).where(eq(campaigns.status, "running"));
    const placing: Promise<void>[] = [];
    // A campaign another process was claiming for: its claim may have read the lines before some freed up.
    let busy = false;
    for (const campaign of running) {
      const claimStartedAt = performance.now();
      let claim: ClaimResult;
      try {
        claim = await claimCampaign(db, campaign, settings, now());
      } catch (error) {
        log.error({ err: error, campaignId: campaign.id }, "the dialler's claim failed; it tries again next tick");
        continue;
      }
      if (claim.kind === "skipped" && claim.busy) busy = true;
      if (claim.kind === "claimed" && claim.calls.length > 0) {
        report.claimed += claim.calls.length;
        placing.push(place(claim, { startedAt: claimStartedAt, committedAt: performance.now() }, report));
      } else if (claim.kind === "paused") {
        report.paused.push(campaign.id);
        log.info({ campaignId: campaign.id, reason: claim.reason }, "campaign paused itself");
        signals?.changed(campaign.id);
      } else if (claim.kind === "completed") {
        report.completed.push(campaign.id);
        log.info({ campaignId: campaign.id, detail: claim.detail }, "campaign completed");
        signals?.changed(campaign.id);
      }
    }
    await Promise.all(placing);
    // Look again shortly (once the other process's claim has committed) rather than at the next interval.
    if (busy) wake();

    // Order follow-up: calling orders whose attribution window ended without a purchase are declined (cheap; once a minute).
    if (now() - lastAttributionSweep >= ATTRIBUTION_SWEEP_INTERVAL_MS) {
      lastAttributionSweep = now();
      await step("closing orders' attribution windows", async () => {
        await sweepAttribution(db, now());
      });
    }

    await step("reaping expired leases", async () => {
      const reaped = await reapExpired({ db, voice, ingest, tools, diallerId: id, leaseMs, log }, now);
      report.settled += reaped.settled.length;
      report.givenBack += reaped.givenBack;
    });
    await step("completing calls whose end-of-call report never came", async () => {
      report.reports += await completeMissingReports({ db, voice, ingest, tools, diallerId: id, leaseMs, log }, now(), askedForReports, [PLACING_FAILED_ENDED_REASON]);
    });
    return report;
  }

  async function step(what: string, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      log.error({ err: error }, `the dialler failed ${what}; it tries again next tick`);
    }
  }

  // One tick at a time: ticks queue behind the one under way; wake-ups while one waits are one.
  let queue: Promise<unknown> = Promise.resolve();
  let wakePending = false;
  let stopped = true;
  let interval: NodeJS.Timeout | null = null;
  let unsubscribe: (() => void) | null = null;

  function tick(): Promise<TickReport> {
    const run = queue.then(runTick, runTick);
    queue = run.catch(() => undefined);
    return run;
  }

  /** Wake-ups within WAKE_COALESCE_MS make one tick (calls ending together fill their lines in one claim). */
  function wake(): void {
    if (stopped || wakePending) return;
    wakePending = true;
    const gathered = new Promise((resolve) => setTimeout(resolve, WAKE_COALESCE_MS).unref());
    queue = queue.then(async () => {
      await gathered;
      wakePending = false;
      if (stopped) return;
      try {
        await runTick();
      } catch (error) {
        log.error({ err: error }, "a dialler tick failed");
      }
    });
  }

  return {
    id,
    tick,
    start() {
      if (!stopped) return;
      stopped = false;
      interval = setInterval(wake, config.campaigns.diallerIntervalMs);
      interval.unref();
      unsubscribe = signals?.onChanged(() => wake()) ?? null;
      wake();
    },
    async stop() {
      stopped = true;
      if (interval) clearInterval(interval);
      interval = null;
      unsubscribe?.();
      unsubscribe = null;
      await queue;
    },
  };
}

/** The app's dialler (server/index.ts starts it when DIALLER_ENABLED; its stop() goes before the app closes). */
export function startDialler(app: FastifyInstance, extra: Pick<DiallerOptions, "onDial" | "id"> = {}): Dialler {
  const dialler = createDialler({ db: app.db, voice: app.voice, config: app.config, log: app.log, signals: app.campaignSignals, ...extra });
  dialler.start();
  return dialler;
}
