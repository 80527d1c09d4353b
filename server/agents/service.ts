/**
 * Saving agents, kept in step with the voice provider (ARCHITECTURE.md §6). The provider is asked first
 * and the row written after, so a save the provider refuses fails whole (502) and changes nothing; when
 * the database write fails after the provider said yes, the provider's side is undone.
 */
import { randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { eq } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import type { z } from "zod";
import { ERROR_CODES, TOOL_ID_PATTERN, agentConfigSchema, type AgentConfig, type agentUpdateSchema } from "../../contract";
import { assertAgentAvailable, type PlanSettings } from "../billing/plan-limits";
import { orgScope, type OrgScope } from "../data/orgScope";
import type { Db } from "../db/client";
import { isDeadlock, isUniqueViolation } from "../db/errors";
import { agents } from "../db/schema";
import { ApiError } from "../plugins/errors";
import { VoiceProviderError, type AgentForSync, type VoiceProvider } from "../voice/types";
import { findCloneOf, knowledgeBaseFilesOf, storedConfig, type AgentRow } from "./repository";

/** What every save needs: the caller's organisation, the voice provider and the request's logger. */
export interface AgentContext {
  /** The database, for the creating transaction (the plan's agent limit is checked in it). */
  db: Db;
  scope: OrgScope;
  voice: VoiceProvider;
  log: FastifyBaseLogger;
  /** The plan rules (DEFAULT_PLAN): a new agent beyond the plan's limit is refused (403 plan_limit_reached). */
  plans: PlanSettings;
}

/** A PUT /agent/{id} body after validation. */
export type AgentChanges = z.output<typeof agentUpdateSchema>;

export interface NewAgent {
  config: AgentConfig;
  isPublic: boolean;
  /** The owner's consent to cloning through the private link (default off). */
  cloneEnabled?: boolean;
  createdBy: string;
  clonedFrom?: string;
}

export async function createAgent(ctx: AgentContext, input: NewAgent): Promise<AgentRow> {
  const orgId = ctx.scope.orgId;
  // Refused before the provider is asked when the plan is full already; checked again, under the
  // organisation's row lock, in the transaction that inserts (two creations at once take turns).
  await ctx.db.transaction((tx) => assertAgentAvailable(tx, orgId, ctx.plans));
  const config = withUniqueFiles(input.config);
  const knowledgeBase = await requireKnowledgeBase(ctx.scope, config.knowledge_base_files);
  await requireTools(ctx, config.model_tool_id);
  const id = randomUUID();
  const { assistantId } = await atProvider(() => ctx.voice.saveAssistant({ id, orgId: ctx.scope.orgId, config, knowledgeBase }, null));
  try {
    return await ctx.db.transaction(async (tx) => {
      await assertAgentAvailable(tx, orgId, ctx.plans);
      return orgScope(tx, orgId).insert(agents, {
        id,
        name: config.agent_name,
        config,
        isPublic: input.isPublic,
        cloneKey: input.cloneEnabled ? newCloneKey() : null,
        providerAssistantId: assistantId,
        clonedFrom: input.clonedFrom ?? null,
        createdBy: input.createdBy,
      });
    });
  } catch (error) {
    if (assistantId) await undo(ctx, "delete the new assistant", () => ctx.voice.deleteAssistant(assistantId));
    throw error;
  }
}

/** Given fields replace the stored ones; analysis_plan, transcriber and voice merge field by field. */
export async function updateAgent(ctx: AgentContext, row: AgentRow, changes: AgentChanges): Promise<AgentRow> {
  const previous = storedConfig(row);
  const config = withUniqueFiles(mergeAgentConfig(previous, changes));
  // Only newly given file ids must exist; one deleted since it was attached is simply not synced.
  const knowledgeBase = changes.knowledge_base_files
    ? await requireKnowledgeBase(ctx.scope, config.knowledge_base_files)
    : await knowledgeBaseFilesOf(ctx.scope, config.knowledge_base_files);
  // The same for tools: only a newly given list is checked, so an older agent can still be saved.
  if (changes.model_tool_id) await requireTools(ctx, config.model_tool_id);
  const agent: AgentForSync = { id: row.id, orgId: ctx.scope.orgId, config, knowledgeBase };
  const { assistantId } = await atProvider(() => ctx.voice.saveAssistant(agent, row.providerAssistantId));

  let updated: AgentRow | undefined;
  try {
    [updated] = await ctx.scope.update(
      agents,
      {
        name: config.agent_name,
        config,
        isPublic: changes.is_public ?? row.isPublic,
        cloneKey: nextCloneKey(row.cloneKey, changes.clone_enabled),
        providerAssistantId: assistantId,
        updatedAt: new Date(),
      },
      eq(agents.id, row.id),
    );
  } catch (error) {
    if (assistantId) {
      const before = { ...agent, config: previous, knowledgeBase: await knowledgeBaseFilesOf(ctx.scope, previous.knowledge_base_files) };
      await undo(ctx, "restore the assistant", () => ctx.voice.saveAssistant(before, assistantId));
    }
    throw error;
  }
  if (!updated) {
    // Deleted meanwhile: an assistant created just now would be left over.
    if (assistantId && assistantId !== row.providerAssistantId) await undo(ctx, "delete the new assistant", () => ctx.voice.deleteAssistant(assistantId));
    throw agentNotFound();
  }
  return updated;
}

export async function deleteAgent(ctx: AgentContext, row: AgentRow): Promise<void> {
  const assistantId = row.providerAssistantId;
  if (assistantId) await atProvider(() => ctx.voice.deleteAssistant(assistantId));
  // The delete sets calls.agent_id to null on the agent's calls (and their triggers update the daily stats), so it can
  // deadlock with a call's webhook writing one of those calls at the same moment; PostgreSQL then aborts one of the two.
  // The delete is one statement: run it again (seen once on PostgreSQL in CI as a 500 to DELETE /agent/{id}).
  for (let attempt = 1; ; attempt++) {
    try {
      await ctx.scope.delete(agents, eq(agents.id, row.id));
      return;
    } catch (error) {
      if (!isDeadlock(error) || attempt >= 3) throw error;
    }
  }
}

/**
 * Copies another organisation's agent into the caller's (GET /agent/{id}/clone?key=). Only with the
 * owner's consent: the agent's cloning is on and `key` is its private link's key; otherwise 404, the
 * same answer as for an agent that does not exist. 409 with the id to open when the agent is the
 * caller's own or the organisation already holds a clone of it.
 */
export async function cloneAgent(ctx: AgentContext, source: AgentRow, createdBy: string, key: string | undefined): Promise<AgentRow> {
  if (source.orgId === ctx.scope.orgId) throw alreadyYours("This agent is already in your organisation.", source.id);
  if (!source.cloneKey || !key || !sameKey(source.cloneKey, key)) throw agentNotFound();
  const existing = await findCloneOf(ctx.scope, source.id);
  if (existing) throw alreadyYours("Your organisation already has a copy of this agent.", existing.id);
  try {
    return await createAgent(ctx, { config: withoutOrganisationResources(storedConfig(source)), isPublic: false, clonedFrom: source.id, createdBy });
  } catch (error) {
    // Two clones at once: the unique index (org_id, cloned_from) lets one through.
    const winner = isUniqueViolation(error) ? await findCloneOf(ctx.scope, source.id) : null;
    if (winner) throw alreadyYours("Your organisation already has a copy of this agent.", winner.id);
    throw error;
  }
}

/**
 * What a clone leaves behind: the source organisation's webhook URL (its secret travels with it), its
 * forwarding number, its knowledge-base files and its provider tool ids belong to that organisation.
 */
export function withoutOrganisationResources(config: AgentConfig): AgentConfig {
  return {
    ...structuredClone(config),
    forward_phone_number: null,
    knowledge_base_files: [],
    model_tool_id: [],
    analysis_plan: { ...config.analysis_plan, server_url: null },
  };
}

export function mergeAgentConfig(current: AgentConfig, changes: AgentChanges): AgentConfig {
  const { analysis_plan, transcriber, voice, is_public: _isPublic, clone_enabled: _cloneEnabled, ...settings } = changes;
  const merged = {
    ...current,
    ...settings,
    analysis_plan: { ...current.analysis_plan, ...analysis_plan },
    transcriber: { ...current.transcriber, ...transcriber },
    voice: { ...current.voice, ...voice },
  };
  const result = agentConfigSchema.safeParse(merged);
  if (!result.success) {
    const detail = result.error.issues.map((issue) => `${issue.path.join(".") || "agent"}: ${issue.message}`).join("; ");
    throw new ApiError(400, ERROR_CODES.validation, detail);
  }
  return result.data;
}

export const agentNotFound = () => ApiError.notFound("Agent not found");

const alreadyYours = (detail: string, id: string) => ApiError.conflict(detail, { id });

/** A private link's key: 24 random bytes, URL-safe (32 characters). */
const newCloneKey = () => randomBytes(24).toString("base64url");

/**
 * The key after a save: turning cloning on keeps a key already made (saving again does not break a
 * link handed out) or makes a new one; turning it off drops it, so that link never works again.
 */
function nextCloneKey(current: string | null, cloneEnabled: boolean | undefined): string | null {
  if (cloneEnabled === undefined) return current;
  return cloneEnabled ? (current ?? newCloneKey()) : null;
}

function sameKey(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** How a tool id appears in an error: quoted, and cut short when it is long. */
const quoted = (id: string) => `"${id.length > 60 ? `${id.slice(0, 60)}…` : id}"`;

/**
 * 400 naming every `model_tool_id` entry that is not a tool id (a UUID) or, when the provider can tell
 * (Vapi: GET /tool/{id}), names no tool that exists; accepted, such an id would fail every later call.
 */
async function requireTools(ctx: AgentContext, ids: readonly string[]): Promise<void> {
  const malformed = ids.filter((id) => !TOOL_ID_PATTERN.test(id));
  if (malformed.length > 0) {
    const many = malformed.length > 1;
    throw new ApiError(
      400,
      ERROR_CODES.validation,
      `model_tool_id: ${malformed.map(quoted).join(", ")} ${many ? "are not tool ids" : "is not a tool id"} (a tool id is the tool's UUID at the voice provider)`,
    );
  }
  const missingTools = ctx.voice.missingTools?.bind(ctx.voice);
  if (!missingTools || ids.length === 0) return;
  const missing = await atProvider(() => missingTools([...new Set(ids)]));
  if (missing.length > 0) {
    const many = missing.length > 1;
    throw new ApiError(
      400,
      ERROR_CODES.validation,
      `model_tool_id: ${many ? "no tools" : "no tool"} ${missing.map(quoted).join(", ")} ${many ? "exist" : "exists"} at the voice provider; create ${many ? "them" : "it"} there first or remove ${many ? "their ids" : "its id"}`,
    );
  }
}

function withUniqueFiles(config: AgentConfig): AgentConfig {
  return { ...config, knowledge_base_files: [...new Set(config.knowledge_base_files)] };
}

/** The files for the provider; 400 naming any id that is not one of the organisation's files. */
async function requireKnowledgeBase(scope: OrgScope, ids: string[]): Promise<AgentForSync["knowledgeBase"]> {
  const files = await knowledgeBaseFilesOf(scope, ids);
  const known = new Set(files.map((file) => file.id));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new ApiError(
      400,
      ERROR_CODES.validation,
      `knowledge_base_files: ${unknown.join(", ")} ${unknown.length > 1 ? "are not files" : "is not a file"} of this organisation; upload the file first`,
    );
  }
  return files;
}

/** Runs a provider call; a refusal becomes a 502 that names the provider's reason. */
async function atProvider<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof VoiceProviderError) throw ApiError.upstream(error.detail); // already a sentence a person can act on
    throw error;
  }
}

/** Best effort: the original error is what the caller needs to see; a failed undo is logged. */
async function undo(ctx: AgentContext, what: string, action: () => Promise<unknown>): Promise<void> {
  try {
    await action();
  } catch (error) {
    ctx.log.error({ err: error }, `could not ${what} at the voice provider after a failed save`);
  }
}
