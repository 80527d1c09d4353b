/**
 * Saving phone numbers, kept in step with the voice provider (the agents' pattern, server/agents/service.ts):
 * the provider is asked first and the row written after, so a save the provider refuses fails whole (502)
 * and changes nothing; when the database write fails after the provider said yes, the provider's side is
 * undone (a created number released, an update restored).
 *
 * One default per organisation (contract/phone-number.ts): every write that touches the default runs in
 * one transaction that first locks the organisation's row (`SELECT … FOR UPDATE`), so concurrent writes
 * take turns; the partial unique index phone_numbers_org_default_unique backs the rule in the database.
 * - the first number becomes the default (whatever `isDefault` says);
 * - `isDefault: true` on create or update clears the previous default in the same transaction;
 * - `isDefault: false` on the default is refused (400): make another number the default instead;
 * - deleting the default promotes the oldest remaining number.
 *
 * Carrier credentials are sealed (AES-256-GCM, server/crypto/credentials.ts) with the row's id as
 * associated data, and opened only to hand them to the provider.
 */
import { assertPhoneNumberAvailable, type PlanSettings } from "../billing/plan-limits";
import { randomInt, randomUUID } from "node:crypto";
import { and, eq, isNotNull } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import type { z } from "zod";
import {
  E164_PATTERN,
  ERROR_CODES,
  VAPI_SUPPORTED_NUMBER_PROVIDERS,
  normalisePhoneNumber,
  type PhoneNumberProvider,
  type phoneNumberCreateSchema,
  type phoneNumberUpdateSchema,
} from "../../contract";
import { findAgent, type AgentRow } from "../agents/repository";
import type { SecretBox } from "../crypto/credentials";
import { orgScope, type OrgScope } from "../data/orgScope";
import type { Db } from "../db/client";
import { isUniqueViolation } from "../db/errors";
import { organizations, phoneNumbers } from "../db/schema";
import { ApiError } from "../plugins/errors";
import { VoiceProviderError, type PhoneNumberForSync, type VoiceProvider } from "../voice/types";
import { assignedNumber, unsupported, type PhoneNumberSyncInput } from "../voice/vapi-phone-numbers";
import { findDefaultPhoneNumber, findPhoneNumberByNumber, oldestPhoneNumber, type PhoneNumberRow } from "./repository";

/** What every save needs: the database (for transactions), the caller's organisation, the provider, the key, the logger. */
export interface PhoneNumberContext {
  db: Db;
  scope: OrgScope;
  voice: VoiceProvider;
  box: SecretBox;
  log: FastifyBaseLogger;
  /** The plan rules (DEFAULT_PLAN): a new number beyond the plan's limit is refused (403 plan_limit_reached). */
  plans: PlanSettings;
}

export type NewPhoneNumber = z.output<typeof phoneNumberCreateSchema>;
export type PhoneNumberChanges = z.output<typeof phoneNumberUpdateSchema>;

type Credentials = NonNullable<PhoneNumberForSync["credentials"]>;

export const phoneNumberNotFound = () => ApiError.notFound("Phone number not found");

export async function createPhoneNumber(ctx: PhoneNumberContext, input: NewPhoneNumber): Promise<PhoneNumberRow> {
  const vapiMode = ctx.voice.mode === "vapi";
  if (vapiMode && !VAPI_SUPPORTED_NUMBER_PROVIDERS.includes(input.provider)) {
    throw new ApiError(400, ERROR_CODES.validation, `provider: ${unsupported(input.provider)}`);
  }
  if (vapiMode && input.provider === "vapi" && input.number !== undefined) {
    throw new ApiError(400, ERROR_CODES.validation, "number: Vapi picks the digits of a vapi number: send area_code (e.g. 415) instead of number");
  }
  const agent = input.agent_id ? await requireAgent(ctx.scope, input.agent_id) : null;
  // Refused before the provider is asked when the plan is full already; checked again under the lock where it is inserted.
  await ctx.db.transaction((tx) => assertPhoneNumberAvailable(tx, ctx.scope.orgId, ctx.plans));

  let number = input.number ?? null;
  if (number === null && !vapiMode) number = await sandboxNumber(ctx.scope, input.area_code ?? "555");
  if (number !== null) await requireNewNumber(ctx.scope, number);

  const id = randomUUID();
  const credentials: Credentials | null = input.credentials
    ? { twilioAccountSid: input.credentials.twilio_account_sid, twilioAuthToken: input.credentials.twilio_auth_token }
    : null;
  const sync: PhoneNumberSyncInput = {
    id,
    orgId: ctx.scope.orgId,
    name: input.name,
    number: number ?? "",
    provider: input.provider,
    assistantId: agent?.providerAssistantId ?? null,
    credentials,
    areaCode: input.area_code ?? null,
  };
  const saved = await atProvider(() => ctx.voice.savePhoneNumber(sync, null));
  const providerNumberId = saved.providerNumberId;
  const assigned = assignedNumber(saved);
  const finalNumber = assigned ? asE164(assigned) : number;

  try {
    if (!finalNumber) throw ApiError.upstream("The voice provider did not say which number it assigned. Try again later.");
    return await inOrgTransaction(ctx, async (scope, tx) => {
      await assertPhoneNumberAvailable(tx, scope.orgId, ctx.plans);
      const current = await findDefaultPhoneNumber(scope);
      const isDefault = input.isDefault === true || !current;
      if (isDefault && current) await scope.update(phoneNumbers, { isDefault: false, updatedAt: new Date() }, eq(phoneNumbers.isDefault, true));
      return scope.insert(phoneNumbers, {
        id,
        name: input.name,
        number: finalNumber,
        isDefault,
        provider: input.provider,
        agentId: agent?.id ?? null,
        providerNumberId,
        credentialsEncrypted: credentials ? ctx.box.seal(credentials, credentialsContext(id)) : null,
      });
    });
  } catch (error) {
    if (providerNumberId) await undo(ctx, "release the new number", () => ctx.voice.deletePhoneNumber(providerNumberId));
    if (finalNumber && violates(error, "phone_numbers_org_number_unique")) throw duplicateNumber(finalNumber);
    throw error;
  }
}

/** Given fields replace the stored ones; `number` and `provider` may only be repeated unchanged. */
export async function updatePhoneNumber(ctx: PhoneNumberContext, row: PhoneNumberRow, changes: PhoneNumberChanges): Promise<PhoneNumberRow> {
  if (changes.number !== undefined && changes.number !== row.number) {
    throw new ApiError(400, ERROR_CODES.validation, "number: a number cannot be changed: add the new number and delete this one");
  }
  if (changes.provider !== undefined && changes.provider !== row.provider) {
    throw new ApiError(400, ERROR_CODES.validation, "provider: the provider of a number cannot be changed: add the number again with the new provider");
  }
  if (changes.credentials !== undefined && row.provider !== "twilio") {
    throw new ApiError(400, ERROR_CODES.validation, "credentials: only twilio numbers carry credentials");
  }
  if (changes.isDefault === false && row.isDefault) {
    throw new ApiError(400, ERROR_CODES.validation, "isDefault: every organisation keeps one default number: make another number the default instead");
  }

  const previousAgent = row.agentId ? await findAgent(ctx.scope, row.agentId) : null;
  const agent =
    changes.agent_id === undefined ? previousAgent : changes.agent_id === null ? null : await requireAgent(ctx.scope, changes.agent_id);
  const name = changes.name ?? row.name;
  const previousCredentials = storedCredentials(ctx, row);
  const credentials: Credentials | null = changes.credentials
    ? { twilioAccountSid: changes.credentials.twilio_account_sid, twilioAuthToken: changes.credentials.twilio_auth_token }
    : previousCredentials;

  const before = syncInput(ctx, row, row.name, previousAgent, previousCredentials);
  const after = syncInput(ctx, row, name, agent, credentials);
  // Sandbox (local) numbers have nothing at the provider; a change the provider does not hold skips it.
  const atProviderToo = row.providerNumberId !== null && (changes.name !== undefined || changes.agent_id !== undefined || changes.credentials !== undefined);
  let providerNumberId = row.providerNumberId;
  if (atProviderToo) ({ providerNumberId } = await atProvider(() => ctx.voice.savePhoneNumber(after, row.providerNumberId)));

  let updated: PhoneNumberRow | undefined;
  try {
    updated = await inOrgTransaction(ctx, async (scope) => {
      const makeDefault = changes.isDefault === true;
      if (makeDefault) await scope.update(phoneNumbers, { isDefault: false, updatedAt: new Date() }, eq(phoneNumbers.isDefault, true));
      const [result] = await scope.update(
        phoneNumbers,
        {
          name,
          agentId: agent?.id ?? null,
          providerNumberId,
          ...(makeDefault ? { isDefault: true } : {}),
          ...(changes.credentials ? { credentialsEncrypted: ctx.box.seal(credentials, credentialsContext(row.id)) } : {}),
          updatedAt: new Date(),
        },
        eq(phoneNumbers.id, row.id),
      );
      // Deleted meanwhile: the transaction's other changes (a cleared default) must not stay.
      if (!result) throw phoneNumberNotFound();
      return result;
    });
  } catch (error) {
    if (atProviderToo && providerNumberId) {
      const id = providerNumberId;
      // A re-import made a new provider number: release it; otherwise put the old settings back.
      if (id !== row.providerNumberId) await undo(ctx, "release the re-imported number", () => ctx.voice.deletePhoneNumber(id));
      else await undo(ctx, "restore the number", () => ctx.voice.savePhoneNumber(before, id));
    }
    throw error;
  }
  return updated;
}

/** Releases the provider's number, then deletes the row; a deleted default hands over to the oldest remaining number. */
export async function deletePhoneNumber(ctx: PhoneNumberContext, row: PhoneNumberRow): Promise<void> {
  const providerNumberId = row.providerNumberId;
  if (providerNumberId) await atProvider(() => ctx.voice.deletePhoneNumber(providerNumberId));
  await inOrgTransaction(ctx, async (scope) => {
    const [deleted] = await scope.delete(phoneNumbers, eq(phoneNumbers.id, row.id));
    if (!deleted?.isDefault) return;
    const next = await oldestPhoneNumber(scope);
    if (next) await scope.update(phoneNumbers, { isDefault: true, updatedAt: new Date() }, eq(phoneNumbers.id, next.id));
  });
}

/**
 * Keeps the provider's numbers in step with an agent's assistant: every number of this organisation that
 * the agent answers and that lives at the provider is pointed at `agent`'s current assistant, or taken
 * off it when `agent` is null (before the agent and its assistant are deleted, so Vapi is never left
 * routing calls to an assistant that no longer exists). Sandbox numbers have nothing to update.
 * Stops at the first refusal (502): numbers already updated stay so, the rest keep their assistant.
 */
export async function repointAgentNumbers(ctx: PhoneNumberContext, agentId: string, agent: AgentRow | null): Promise<void> {
  const answering = await ctx.scope.select(phoneNumbers, {
    where: and(eq(phoneNumbers.agentId, agentId), isNotNull(phoneNumbers.providerNumberId)),
  });
  for (const row of answering) await updatePhoneNumber(ctx, row, { agent_id: agent ? agent.id : null });
}

/** The stored credentials, opened; null when there are none or this server's key cannot open them (logged). */
function storedCredentials(ctx: PhoneNumberContext, row: PhoneNumberRow): Credentials | null {
  if (!row.credentialsEncrypted) return null;
  try {
    return ctx.box.open<Credentials>(row.credentialsEncrypted, credentialsContext(row.id));
  } catch (error) {
    ctx.log.warn({ err: error, phoneNumberId: row.id }, "stored carrier credentials could not be opened; send them again to replace them");
    return null;
  }
}

function syncInput(ctx: PhoneNumberContext, row: PhoneNumberRow, name: string, agent: AgentRow | null, credentials: Credentials | null): PhoneNumberForSync {
  return {
    id: row.id,
    orgId: ctx.scope.orgId,
    name,
    number: row.number,
    provider: row.provider as PhoneNumberProvider,
    assistantId: agent?.providerAssistantId ?? null,
    credentials,
  };
}

const credentialsContext = (id: string) => `phone_numbers:${id}:credentials`;

/**
 * Runs `work` in a transaction holding the organisation's row lock, so writes that move the default
 * take turns (and a reader never sees two defaults or none in between).
 */
async function inOrgTransaction<T>(ctx: PhoneNumberContext, work: (scope: OrgScope, tx: Db) => Promise<T>): Promise<T> {
  const orgId = ctx.scope.orgId;
  return ctx.db.transaction(async (tx) => {
    await tx.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, orgId)).for("update");
    return work(orgScope(tx, orgId), tx);
  });
}

async function requireAgent(scope: OrgScope, agentId: string): Promise<AgentRow> {
  const agent = await findAgent(scope, agentId);
  if (!agent) throw new ApiError(400, ERROR_CODES.validation, `agent_id: ${agentId} is not an agent of this organisation`);
  return agent;
}

async function requireNewNumber(scope: OrgScope, number: string): Promise<void> {
  const existing = await findPhoneNumberByNumber(scope, number);
  if (existing) throw duplicateNumber(number, existing.name);
}

const duplicateNumber = (number: string, name?: string) =>
  ApiError.conflict(`This organisation already has the number ${number}${name ? ` ("${name}")` : ""}: each number can be added once.`);

/**
 * A made-up number for a sandbox `vapi` number given only an area code: +1 <area> 555-01xx, the range
 * reserved for fiction, one not yet used in the organisation.
 */
async function sandboxNumber(scope: OrgScope, areaCode: string): Promise<string> {
  const start = randomInt(100);
  for (let step = 0; step < 100; step++) {
    const candidate = `+1${areaCode}55501${String((start + step) % 100).padStart(2, "0")}`;
    if (!(await findPhoneNumberByNumber(scope, candidate))) return candidate;
  }
  throw ApiError.conflict(`Every sandbox number in area code ${areaCode} (555-0100 to 555-0199) is taken: choose another area code or give a number.`);
}

/** Vapi's digits as we store them: E.164 ('+' added when only digits came back). */
function asE164(value: string): string {
  const digits = normalisePhoneNumber(value);
  const withPlus = /^\d+$/.test(digits) ? `+${digits}` : digits;
  return E164_PATTERN.test(withPlus) ? withPlus : value;
}

/** The unique index or constraint a write broke, if that is why it failed. */
function violates(error: unknown, constraint: string): boolean {
  if (!isUniqueViolation(error)) return false;
  for (let current = error, depth = 0; current && typeof current === "object" && depth < 5; depth++) {
    if ((current as { constraint?: unknown }).constraint === constraint) return true;
    current = (current as { cause?: unknown }).cause;
  }
  // Drivers that do not name the constraint: the message usually does.
  return String((error as { cause?: { message?: unknown } }).cause?.message ?? "").includes(constraint);
}

/** Runs a provider call; a refusal becomes a 502 that names the provider's reason. */
async function atProvider<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof VoiceProviderError) throw ApiError.upstream(error.detail);
    throw error;
  }
}

/** Best effort: the original error is what the caller needs to see; a failed undo is logged. */
async function undo(ctx: PhoneNumberContext, what: string, action: () => Promise<unknown>): Promise<void> {
  try {
    await action();
  } catch (error) {
    ctx.log.error({ err: error }, `could not ${what} at the voice provider after a failed save`);
  }
}
