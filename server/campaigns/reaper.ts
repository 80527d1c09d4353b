/**
 * What the dialler does each tick about contacts whose call is not going as planned:
 *
 * - settleMissed: an in_progress contact whose call has ended (its end was recorded, but not what it
 *   means for the contact: a hook that was not there, an end-of-call report without an ended reason
 *   that never came) is settled, once (settle.ts guards it).
 * - reapExpired: an in_progress contact whose lease ran out (nothing has been heard of its call for
 *   DIALLER_LEASE_SECONDS) is re-leased by this dialler, then the provider is asked about the call by our
 *   id (VoiceProvider.lookupCall):
 *   - unknown: the provider never received it (its placer died between the claim and the request, or
 *     gave the request up): the call row is removed and the attempt given back (queued, ready now);
 *   - active: the call is on: the new lease stands (long calls are asked about once a lease);
 *   - ended: its end goes through the ordinary ingest (which settles the contact), its tool calls
 *     through the tool handlers (an opt-out said on the call is kept).
 *
 * Only one process reaps a contact at a time: the re-lease is an UPDATE of rows picked FOR UPDATE SKIP
 * LOCKED, and every later write checks that the contact is still in_progress for that call.
 *
 * - completeMissingReports: a call of any kind (campaign, manual, public, web) that ended (a status-update
 *   said so) but whose end-of-call report has not come a lease later — its poster died (the sandbox of a killed
 *   process), or the delivery was lost — is completed from the provider's record: the report goes through the
 *   ordinary ingest (transcript, cost, the debit, once by the event's key). Without it such a call would never
 *   be charged: its contact settled on the status-update, so the reaper never asks about it.
 */
import { and, asc, desc, eq, inArray, isNull, lt, ne, or, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { calls, campaignContacts, phoneNumbers } from "../db/schema";
import type { CallLookup, VoiceProvider } from "../voice/types";
import { lockOrganisationForCalls } from "../wallet/wallet";
import { ingestEndOfCallReport, ingestStatusUpdate, type IngestContext } from "../webhooks/ingest";
import { answerToolCalls, type ToolRegistry } from "../webhooks/tools";
import { settleCampaignCall, settleOnCallEnded, type Settled } from "./settle";

/** Contacts reaped per tick, and settled by the sweep per tick. */
const REAP_BATCH = 20;
/** Calls asked about per tick for their missing report, and how long after its end a call is still asked about. */
const REPORT_BATCH = 20;
const REPORT_LOOKBACK_MS = 24 * 60 * 60_000;
const SWEEP_BATCH = 100;
/** An ended call without an ended reason waits this long for its end-of-call report before it is settled without. */
const REPORT_GRACE_MS = 30_000;

export interface ReaperContext {
  db: Db;
  voice: VoiceProvider;
  /** The ingest's settings; its onCallEnded is the reaper's own (settle.ts), counted in the report. */
  ingest: IngestContext;
  tools: ToolRegistry;
  diallerId: string;
  leaseMs: number;
  log: { warn(details: object, message: string): void };
}

export interface ReapReport {
  settled: Settled[];
  givenBack: number;
  active: number;
  ended: number;
}

/**
 * Removes a call the provider never received and gives the contact its attempt back: queued again,
 * `readyAt`, last_call_id back to its previous call. Call it inside a transaction that took the
 * organisation's row first (and the campaign's, when it pauses it). Answers false (and changes nothing)
 * when the contact is no longer in_progress for that call.
 */
export async function giveBackAttempt(tx: Db, input: { orgId: string; callId: string; contactId: string; readyAt: Date; now: Date }): Promise<boolean> {
  const [call] = await tx.select().from(calls).where(and(eq(calls.id, input.callId), eq(calls.orgId, input.orgId))).for("update");
  const [contact] = await tx.select().from(campaignContacts).where(and(eq(campaignContacts.id, input.contactId), eq(campaignContacts.orgId, input.orgId))).for("update");
  if (!contact || contact.status !== "in_progress" || contact.lastCallId !== input.callId) return false;
  if (call) await tx.delete(calls).where(eq(calls.id, call.id));
  const [previous] = await tx
    .select({ id: calls.id })
    .from(calls)
    .where(and(eq(calls.campaignContactId, contact.id), ne(calls.id, input.callId)))
    .orderBy(desc(calls.startedAt))
    .limit(1);
  await tx
    .update(campaignContacts)
    .set({
      status: "queued",
      attempts: sql`greatest(${campaignContacts.attempts} - 1, 0)`,
      lastCallId: previous?.id ?? null,
      readyAt: input.readyAt,
      leaseUntil: null,
      leasedBy: null,
      updatedAt: input.now,
    })
    .where(eq(campaignContacts.id, contact.id));
  return true;
}

/** Settles the in_progress contacts whose call has ended (see the file comment). */
export async function settleMissed(ctx: Pick<ReaperContext, "db">, now: number): Promise<Settled[]> {
  const rows = await ctx.db
    .select({ callId: calls.id, orgId: calls.orgId })
    .from(campaignContacts)
    .innerJoin(calls, eq(calls.id, campaignContacts.lastCallId))
    .where(
      and(
        eq(campaignContacts.status, "in_progress"),
        ne(calls.outcome, "in_progress"),
        or(sql`${calls.endedReason} is not null`, lt(calls.updatedAt, new Date(now - REPORT_GRACE_MS))),
      ),
    )
    .limit(SWEEP_BATCH);
  const settled: Settled[] = [];
  for (const row of rows) {
    const done = await ctx.db.transaction(async (tx) => {
      await lockOrganisationForCalls(tx, row.orgId);
      const [call] = await tx.select().from(calls).where(eq(calls.id, row.callId));
      return call ? settleCampaignCall(tx, call, { force: true, now }) : null;
    });
    if (done) settled.push(done);
  }
  return settled;
}

/** Re-leases (for this dialler) in_progress contacts whose lease ran out; answers them. */
async function releaseExpired(ctx: ReaperContext, now: number) {
  const expired = ctx.db
    .select({ id: campaignContacts.id })
    .from(campaignContacts)
    .where(and(eq(campaignContacts.status, "in_progress"), or(lt(campaignContacts.leaseUntil, new Date(now)), isNull(campaignContacts.leaseUntil))))
    .orderBy(asc(campaignContacts.leaseUntil))
    .limit(REAP_BATCH)
    .for("update", { skipLocked: true });
  return ctx.db
    .update(campaignContacts)
    .set({ leaseUntil: new Date(now + ctx.leaseMs), leasedBy: ctx.diallerId })
    .where(and(inArray(campaignContacts.id, expired), eq(campaignContacts.status, "in_progress")))
    .returning();
}

/** Asks the provider about each contact whose lease ran out, and acts on the answer (see the file comment). */
export async function reapExpired(ctx: ReaperContext, now: () => number): Promise<ReapReport> {
  const report: ReapReport = { settled: [], givenBack: 0, active: 0, ended: 0 };
  const contacts = await releaseExpired(ctx, now());
  await Promise.all(
    contacts.map(async (contact) => {
      if (!contact.lastCallId) return;
      const callId = contact.lastCallId;
      const [call] = await ctx.db.select().from(calls).where(eq(calls.id, callId));
      const [number] = call?.phoneNumberId ? await ctx.db.select().from(phoneNumbers).where(eq(phoneNumbers.id, call.phoneNumberId)) : [];
      let answer: CallLookup;
      try {
        answer = await ctx.voice.lookupCall({
          callId,
          orgId: contact.orgId,
          providerCallId: call?.providerCallId ?? null,
          placedAt: call?.startedAt ?? contact.updatedAt,
          phoneNumber: number ? { id: number.id, providerNumberId: number.providerNumberId } : null,
        });
      } catch (error) {
        // Asked again when the new lease runs out.
        ctx.log.warn({ err: error, callId, contactId: contact.id }, "the dialler could not ask the voice provider about a campaign call");
        return;
      }

      if (answer.state === "unknown") {
        // A call the provider has news of was received: never give such a call's attempt back.
        if (call && (call.providerCallId || call.status !== "queued")) {
          ctx.log.warn({ callId, status: call.status }, "the voice provider does not know a campaign call it has reported on; asked again later");
          return;
        }
        const given = await ctx.db.transaction(async (tx) => {
          await lockOrganisationForCalls(tx, contact.orgId);
          return giveBackAttempt(tx, { orgId: contact.orgId, callId, contactId: contact.id, readyAt: new Date(now()), now: new Date(now()) });
        });
        if (given) report.givenBack++;
        return;
      }
      if (answer.state === "active") {
        report.active++;
        if (call && !call.providerCallId) {
          await ctx.db.transaction(async (tx) => {
            await lockOrganisationForCalls(tx, contact.orgId);
            await tx.update(calls).set({ providerCallId: answer.providerCallId, updatedAt: new Date(now()) }).where(and(eq(calls.id, callId), isNull(calls.providerCallId)));
          });
        }
        return;
      }

      report.ended++;
      // The ordinary ingest, which settles the contact in its transaction (counted here).
      const ingest: IngestContext = {
        ...ctx.ingest,
        onCallEnded: async (tx, row, event) => {
          const done = await settleOnCallEnded(tx, row, event);
          if (done) report.settled.push(done);
        },
      };
      for (const message of answer.messages) {
        if (message.type === "tool-calls") {
          if (call) await answerToolCalls(ctx.tools, message, call);
        } else if (message.type === "status-update") {
          await ingestStatusUpdate(ingest, message);
        } else if (message.type === "end-of-call-report") {
          await ingestEndOfCallReport(ingest, message);
        }
      }
      // Settled by the ingest's hook unless those events were in before (or the call row is gone).
      const settled = await ctx.db.transaction(async (tx) => {
        await lockOrganisationForCalls(tx, contact.orgId);
        const [ended] = await tx.select().from(calls).where(eq(calls.id, callId));
        const endedCall = ended ?? { id: callId, orgId: contact.orgId, campaignContactId: contact.id, status: "ended", endedReason: answer.endedReason, endedAt: new Date(now()) };
        return settleCampaignCall(tx, endedCall, { force: true, now: now() });
      });
      if (settled) report.settled.push(settled);
    }),
  );
  return report;
}

/**
 * Completes the calls whose end-of-call report never came (see the file comment), asking the provider about each
 * at most once a lease in this process (`asked`: call id → when). `except`: ended reasons of calls the provider
 * never received (nothing to ask about). Answers how many reports were ingested.
 */
export async function completeMissingReports(ctx: ReaperContext, now: number, asked: Map<string, number>, except: readonly string[]): Promise<number> {
  // calls_ended_uncosted_idx: only ended calls without a cost are read.
  const rows = await ctx.db
    .select()
    .from(calls)
    .where(
      and(
        eq(calls.status, "ended"),
        isNull(calls.costMicros),
        lt(calls.endedAt, new Date(now - ctx.leaseMs)),
        sql`${calls.endedAt} > ${new Date(now - REPORT_LOOKBACK_MS).toISOString()}::timestamptz`,
        except.length > 0 ? or(isNull(calls.endedReason), sql`${calls.endedReason} not in (${sql.join(except.map((reason) => sql`${reason}`), sql`, `)})`) : undefined,
        sql`not exists (select 1 from webhook_events e where e.event_key = coalesce(${calls.providerCallId}, ${calls.id}::text) || ':end-of-call-report:')`,
      ),
    )
    .orderBy(asc(calls.endedAt))
    .limit(REPORT_BATCH);
  for (const [id, at] of asked) if (at < now - ctx.leaseMs) asked.delete(id);
  let completed = 0;
  for (const call of rows.filter((row) => !asked.has(row.id))) {
    asked.set(call.id, now);
    const [number] = call.phoneNumberId ? await ctx.db.select().from(phoneNumbers).where(eq(phoneNumbers.id, call.phoneNumberId)) : [];
    let answer: CallLookup;
    try {
      answer = await ctx.voice.lookupCall({
        callId: call.id,
        orgId: call.orgId,
        providerCallId: call.providerCallId,
        placedAt: call.startedAt,
        phoneNumber: number ? { id: number.id, providerNumberId: number.providerNumberId } : null,
      });
    } catch (error) {
      ctx.log.warn({ err: error, callId: call.id }, "the dialler could not ask the voice provider for a call's missing end-of-call report");
      continue;
    }
    if (answer.state !== "ended") continue;
    for (const message of answer.messages) {
      if (message.type === "end-of-call-report" && (await ingestEndOfCallReport(ctx.ingest, message)) === "applied") completed++;
    }
  }
  return completed;
}
