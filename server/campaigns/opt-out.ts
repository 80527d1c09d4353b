/**
 * The opt-out tool: campaign calls give the assistant a function tool, `do_not_call`, to call when the
 * customer asks not to be called again (Vapi: assistantOverrides["tools:append"]; the sandbox calls it on
 * its …04 numbers). Its `tool-calls` webhook puts the customer's number on the organisation's
 * do-not-call list (source "call", with the call's id); the contact ends as dnc when its call is settled
 * (server/campaigns/settle.ts reads the list then: while the call is on, the contact stays in_progress,
 * so it keeps its place in the campaign's concurrency until the line is free). A contact no longer in a
 * call (the tool answered late) is marked dnc at once.
 * The list is written by server/campaigns/dnc.ts (addToDnc), as every other addition is: the number's
 * waiting contacts in the organisation's other campaigns stop too.
 */
import { and, eq, notInArray } from "drizzle-orm";
import type { CallRow } from "../calls/repository";
import type { Db } from "../db/client";
import { campaignContacts } from "../db/schema";
import { addToDnc } from "./dnc";
import type { FunctionToolSpec } from "../voice/types";
import { lockOrganisationForCalls } from "../wallet/wallet";
import type { ToolHandler } from "../webhooks/tools";

export const OPT_OUT_TOOL: FunctionToolSpec = {
  name: "do_not_call",
  description:
    "Call this when the person you are calling asks not to be called again (to be taken off the list, to stop calling). " +
    "It puts their number on the do-not-call list. Then confirm they will not be called again and end the call politely.",
  parameters: {
    type: "object",
    properties: { reason: { type: "string", description: "What the person said, in a few words." } },
  },
};

const OPT_OUT_REASON = "Asked not to be called again during a call";

/** Records the opt-out of the call's customer (idempotent: a second delivery changes nothing). */
export async function recordOptOut(db: Db, call: CallRow, said: string | null): Promise<void> {
  const number = call.customerNumber;
  if (!number) throw new Error("This call has no customer number to put on the do-not-call list.");
  await db.transaction(async (tx) => {
    await lockOrganisationForCalls(tx, call.orgId);
    const reason = said?.trim() ? `${OPT_OUT_REASON}: "${said.trim().slice(0, 200)}"` : OPT_OUT_REASON;
    await addToDnc(tx, call.orgId, { number, reason, source: "call", callId: call.id, createdBy: null });
    if (call.campaignContactId) {
      await tx
        .update(campaignContacts)
        .set({ status: "dnc", leaseUntil: null, leasedBy: null, updatedAt: new Date() })
        .where(and(eq(campaignContacts.id, call.campaignContactId), eq(campaignContacts.orgId, call.orgId), notInArray(campaignContacts.status, ["in_progress", "dnc"])));
    }
  });
}

/** The tool registry's handlers for campaign calls (server/routes/webhooks.ts registers them). */
export function campaignToolHandlers(db: Db): Record<string, ToolHandler> {
  return {
    [OPT_OUT_TOOL.name]: async (args, { call }) => {
      if (!call) throw new Error("This call is not one this server placed, so its number cannot be put on a do-not-call list.");
      await recordOptOut(db, call, typeof args.reason === "string" ? args.reason : null);
      return "The number is on the do-not-call list: this person will not be called again. Tell them so, thank them, and end the call politely.";
    },
  };
}
