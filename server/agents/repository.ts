/**
 * Agent rows: the queries and the mapping to the API shape. Every query on the caller's rows goes
 * through the organisation scope; the two cross-organisation reads (clone and the public profile, where
 * the unguessable id is the capability) are `findAgentInAnyOrganisation`, and nothing else.
 */
import { desc, eq, inArray } from "drizzle-orm";
import { DEFAULT_AGENT_CONFIG, type Agent, type AgentConfig } from "../../contract";
import type { OrgScope } from "../data/orgScope";
import { isoTime } from "../data/time";
import type { Db } from "../db/client";
import { agents, knowledgeBaseFiles } from "../db/schema";
import type { AgentForSync } from "../voice/types";

export type AgentRow = typeof agents.$inferSelect;

/**
 * The stored configuration with today's defaults under it: a row written before a setting existed
 * still answers every field.
 */
export function storedConfig(row: Pick<AgentRow, "config">): AgentConfig {
  const config = row.config;
  return {
    ...DEFAULT_AGENT_CONFIG,
    ...config,
    analysis_plan: { ...DEFAULT_AGENT_CONFIG.analysis_plan, ...config.analysis_plan },
    transcriber: { ...DEFAULT_AGENT_CONFIG.transcriber, ...config.transcriber },
    voice: { ...DEFAULT_AGENT_CONFIG.voice, ...config.voice },
  };
}

export function toApiAgent(row: AgentRow): Agent {
  // Added to storedConfig's new object rather than spread into another: spreading its ~30 keys again
  // cost about 20 µs a call, more than the rest of GET /agent/{id}'s own work in Node.
  return Object.assign(storedConfig(row), {
    id: row.id,
    agent_id: row.id,
    is_public: row.isPublic,
    provider_assistant_id: row.providerAssistantId,
    sync_status: row.providerAssistantId ? ("synced" as const) : ("local" as const),
    cloned_from: row.clonedFrom,
    created_at: isoTime(row.createdAt),
    updated_at: isoTime(row.updatedAt),
  });
}

/** The organisation's agents, most recently edited first. */
export async function listAgents(scope: OrgScope, page: number, limit: number): Promise<{ rows: AgentRow[]; total: number }> {
  const [rows, total] = await Promise.all([
    scope.select(agents, { orderBy: [desc(agents.updatedAt), desc(agents.createdAt), desc(agents.id)], limit, offset: (page - 1) * limit }),
    scope.count(agents),
  ]);
  return { rows, total };
}

export function findAgent(scope: OrgScope, id: string): Promise<AgentRow | null> {
  return scope.byId(agents, id);
}

/** The organisation's clone of `sourceId`, if it has one (there is at most one: agents_org_cloned_from_unique). */
export function findCloneOf(scope: OrgScope, sourceId: string): Promise<AgentRow | null> {
  return scope.first(agents, eq(agents.clonedFrom, sourceId));
}

/**
 * An agent of any organisation, by id. Only for the two routes where the id itself is the capability:
 * cloning through a shared private link and the public agent profile.
 */
export async function findAgentInAnyOrganisation(db: Db, id: string): Promise<AgentRow | null> {
  const rows = await db.select().from(agents).where(eq(agents.id, id)).limit(1);
  return rows[0] ?? null;
}

/** The organisation's knowledge-base files among `ids`, in the order of `ids` (unknown ids left out). */
export async function knowledgeBaseFilesOf(scope: OrgScope, ids: readonly string[]): Promise<AgentForSync["knowledgeBase"]> {
  if (ids.length === 0) return [];
  const rows = await scope.select(knowledgeBaseFiles, { where: inArray(knowledgeBaseFiles.id, [...ids]) });
  const byId = new Map(rows.map((row) => [row.id, { id: row.id, name: row.name, providerFileId: row.providerFileId }]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
