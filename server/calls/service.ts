/**
 * Placing outbound calls (POST /call/ for a member, POST /call/public for anyone, on a public agent).
 *
 * The checks come first and write nothing: the agent's tools, then the wallet (MIN_BALANCE_USD). Then
 * the call row is written (queued, with our id) and the provider asked to place the call with our id as
 * metadata, so webhook events that arrive before the provider has answered still find the record. When
 * the provider refuses, the row is removed again: a refused call leaves nothing behind.
 *
 * Tools ("missing or invalid", spec §8): a `model_tool_id` entry that is not a well-formed tool id
 * (Vapi's tool ids are UUIDs) is refused in both modes with a 400 naming it; whether a well-formed id
 * exists is only known to the provider, so in Vapi mode its refusal of the call naming a tool or toolId
 * also becomes a 400 that says so. The sandbox has no tools to look up: well-formed ids pass.
 */
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import { ERROR_CODES, INSUFFICIENT_BALANCE_DETAIL, TOOL_ID_PATTERN } from "../../contract";
import { knowledgeBaseFilesOf, storedConfig, type AgentRow } from "../agents/repository";
import { orgScope } from "../data/orgScope";
import type { Db } from "../db/client";
import { agents, calls, phoneNumbers } from "../db/schema";
import { ApiError } from "../plugins/errors";
import { VoiceProviderError, type PhoneCallRequest, type VoiceProvider } from "../voice/types";
import { reserveCall, lockOrganisationForCalls, type WalletPolicy } from "../wallet/wallet";
import { gateCall } from "../billing/call-gate";
import type { PlanSettings } from "../billing/plan-limits";
import { assertNumberBelowHourlyLimit } from "./limits";
import type { CallRow } from "./repository";

export type PhoneNumberRow = typeof phoneNumbers.$inferSelect;

export interface CallContext {
  db: Db;
  voice: VoiceProvider;
  wallet: WalletPolicy;
  /** The plan rules (the call gate's concurrent calls). */
  plans: PlanSettings;
  log: FastifyBaseLogger;
}

export interface OutboundCall {
  agent: AgentRow;
  phoneNumber: PhoneNumberRow;
  customer: { number: string; name: string | null };
  /** assistantOverrides.variableValues, e.g. {name}. */
  variableValues: Record<string, string>;
  /** Asked for through POST /call/public: counted against this hourly limit per destination number. */
  publicRequest?: { perNumberPerHour: number };
}

/** 400 naming the agent's tool ids that are not well-formed; nothing when all are. */
export function assertToolsValid(agent: AgentRow): void {
  const invalid = storedConfig(agent).model_tool_id.filter((id) => !TOOL_ID_PATTERN.test(id.trim()));
  if (invalid.length === 0) return;
  const list = invalid.map((id) => `"${id.length > 60 ? `${id.slice(0, 60)}…` : id}"`).join(", ");
  throw ApiError.badRequest(
    `Agent configuration error: the tool ${invalid.length > 1 ? "ids" : "id"} ${list} in model_tool_id ${invalid.length > 1 ? "are" : "is"} not valid ` +
      "(a toolId is the tool's UUID). Fix or remove the tool in the agent's settings.",
  );
}

/** The provider's assistant id for the agent; in Vapi mode an agent never saved there is saved first (the dialler's too). */
export async function assistantIdFor(ctx: Pick<CallContext, "db" | "voice">, agent: AgentRow): Promise<string | null> {
  if (ctx.voice.mode === "sandbox" || agent.providerAssistantId) return agent.providerAssistantId;
  const scope = orgScope(ctx.db, agent.orgId);
  const config = storedConfig(agent);
  const knowledgeBase = await knowledgeBaseFilesOf(scope, config.knowledge_base_files);
  const { assistantId } = await ctx.voice.saveAssistant({ id: agent.id, orgId: agent.orgId, config, knowledgeBase }, null);
  if (assistantId) await scope.update(agents, { providerAssistantId: assistantId }, eq(agents.id, agent.id));
  return assistantId;
}

/** A provider refusal as the API answers it: tools → 400 saying so, other 4xx → 400, the rest → 502. */
function refusal(error: VoiceProviderError): ApiError {
  const status = error.providerStatus;
  if (status !== null && status >= 400 && status < 500 && /tool/i.test(error.detail)) {
    return ApiError.badRequest(`Agent configuration error: the voice provider refused the agent's tools (toolId). ${error.detail}`);
  }
  if (status === 400 || status === 404 || status === 422) return ApiError.badRequest(error.detail);
  return ApiError.upstream(error.detail);
}

/** What the provider is asked to place for our call `callId` (POST /call/ and the campaigns' dialler). */
export function phoneCallRequest(
  callId: string,
  agent: AgentRow,
  assistantId: string | null,
  phoneNumber: PhoneNumberRow,
  input: Pick<OutboundCall, "customer" | "variableValues">,
): PhoneCallRequest {
  return {
    callId,
    orgId: agent.orgId,
    agent: { id: agent.id, orgId: agent.orgId, config: storedConfig(agent), knowledgeBase: [] },
    assistantId,
    phoneNumber: { id: phoneNumber.id, number: phoneNumber.number, providerNumberId: phoneNumber.providerNumberId },
    customer: input.customer,
    variableValues: input.variableValues,
  };
}

/** Places the call: answers the call row (queued, with the provider's call id). */
export async function placeOutboundCall(ctx: CallContext, input: OutboundCall): Promise<CallRow> {
  const { agent, phoneNumber } = input;
  assertToolsValid(agent);
  if (ctx.voice.mode === "vapi" && !phoneNumber.providerNumberId) {
    throw ApiError.badRequest("This phone number is not set up at Vapi yet: open it in Phone Numbers and save it again, then try again.");
  }

  const id = randomUUID();
  // The queued row is the call's hold on the balance: checked and written under one lock (wallet.ts).
  const publicRequest = input.publicRequest;
  const numberLimit = publicRequest ? (tx: Db) => assertNumberBelowHourlyLimit(tx, input.customer.number, publicRequest.perNumberPerHour) : undefined;
  const insertQueued = (tx: Db) =>
    orgScope(tx, agent.orgId).insert(calls, {
      id,
      type: "outbound",
      status: "queued",
      agentId: agent.id,
      phoneNumberId: phoneNumber.id,
      customerNumber: input.customer.number,
      customerName: input.customer.name,
      isSandbox: ctx.voice.mode === "sandbox",
      publicRequest: publicRequest !== undefined,
      startedAt: new Date(),
    });
  const gate = (tx: Db) => gateCall(tx, { orgId: agent.orgId, agentId: agent.id }, ctx.plans, ctx.wallet);
  const reserved = await reserveCall(ctx.db, agent.orgId, ctx.wallet, insertQueued, numberLimit, gate);
  if (!reserved) throw new ApiError(403, ERROR_CODES.insufficientBalance, INSUFFICIENT_BALANCE_DETAIL);

  // From here a failure removes the queued row again: a refused call leaves nothing behind.
  let placed: { providerCallId: string };
  try {
    const assistantId = await assistantIdFor(ctx, agent);
    placed = await ctx.voice.startPhoneCall(phoneCallRequest(id, agent, assistantId, phoneNumber, input));
  } catch (error) {
    await ctx.db.transaction(async (tx) => {
      await lockOrganisationForCalls(tx, agent.orgId);
      await orgScope(tx, agent.orgId).delete(calls, eq(calls.id, id));
    });
    throw error instanceof VoiceProviderError ? refusal(error) : error;
  }

  // A webhook may already have set it (it carries our id); the same value either way. The organisation's
  // row is taken before the call's, as every writer of calls does (lockOrganisationForCalls in wallet.ts).
  const [row] = await ctx.db.transaction(async (tx) => {
    await lockOrganisationForCalls(tx, agent.orgId);
    return orgScope(tx, agent.orgId).update(calls, { providerCallId: placed.providerCallId, updatedAt: new Date() }, eq(calls.id, id));
  });
  if (!row) throw ApiError.notFound("The call was removed while it was being placed.");
  return row;
}
