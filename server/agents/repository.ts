/**
 * Agent rows: the queries and the mapping to the API shape. Every query on the caller's rows goes
 * through the organisation scope; the two cross-organisation reads (clone and the public profile, where
 * the owner's consent is checked: the private link's key, or the agent being public) are
 * `findAgentInAnyOrganisation`, and nothing else.
 */
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { DEFAULT_AGENT_CONFIG, type Agent, type AgentConfig } from "../../contract";
import { KeptAnswers } from "../data/kept-answers";
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

/** The columns an agent's API answer is made from (AgentAnswers reads exactly these, and keys on them). */
export type ApiAgentColumns = Pick<AgentRow, "id" | "isPublic" | "cloneKey" | "providerAssistantId" | "clonedFrom" | "createdAt" | "updatedAt" | "config">;

export function toApiAgent(row: ApiAgentColumns): Agent {
  // Added to storedConfig's new object rather than spread into another: spreading its ~30 keys again
  // cost about 20 µs a call, more than the rest of GET /agent/{id}'s own work in Node.
  return Object.assign(storedConfig(row), {
    id: row.id,
    agent_id: row.id,
    is_public: row.isPublic,
    clone_enabled: row.cloneKey !== null,
    clone_key: row.cloneKey,
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

/** What an agent's answer is made of, as PostgreSQL writes it (timestamps and configuration as text), and the row version. */
interface AgentAnswerRow {
  version: string;
  id: string;
  isPublic: boolean;
  cloneKey: string | null;
  providerAssistantId: string | null;
  clonedFrom: string | null;
  createdAt: string;
  updatedAt: string;
  config: string;
}

type Statement<Row> = { execute(values: { orgId: string; id: string }): Promise<Row[]> };
const answerStatements = new WeakMap<Db, { version: Statement<{ version: string }>; row: Statement<AgentAnswerRow> }>();

/**
 * The statements behind AgentAnswers.find, built once per database (named: primary-key lookups): the
 * row's version alone, and the whole row with its version. The version is the row's xmin, the transaction
 * that wrote the row as it stands: any UPDATE (through the API or straight in SQL, whatever it changes)
 * writes a new row version with a new xmin, and a row deleted and inserted again gets a new one too.
 */
function answerStatementsFor(db: Db) {
  let statements = answerStatements.get(db);
  if (!statements) {
    const byOrgAndId = and(eq(agents.orgId, sql.placeholder("orgId")), eq(agents.id, sql.placeholder("id")));
    statements = {
      version: db
        .select({ version: sql<string>`xmin::text` })
        .from(agents)
        .where(byOrgAndId)
        .limit(1)
        .prepare("agent_answer_version"),
      row: db
        .select({
          version: sql<string>`xmin::text`,
          id: agents.id,
          isPublic: agents.isPublic,
          cloneKey: agents.cloneKey,
          providerAssistantId: agents.providerAssistantId,
          clonedFrom: agents.clonedFrom,
          createdAt: sql<string>`${agents.createdAt}::text`,
          updatedAt: sql<string>`${agents.updatedAt}::text`,
          config: sql<string>`${agents.config}::text`,
        })
        .from(agents)
        .where(byOrgAndId)
        .limit(1)
        .prepare("agent_answer_by_id"),
    };
    answerStatements.set(db, statements);
  }
  return statements;
}

/**
 * GET /agent/{id}'s answer body (`{"data": agent}` as JSON text), remembered per organisation and agent
 * under the row's version (xmin, see answerStatementsFor). A request reads the version only (a few bytes
 * instead of the configuration's kilobytes) and sends the remembered text when it matches; otherwise it
 * reads the row with its version and remembers the new answer under that version, the one the answer was
 * made from (not the one read first: the row may have changed in between). A remembered answer is
 * therefore never older than the row a request sees. What this saves on every request: reading and
 * parsing the stored configuration, merging it over the defaults, and writing the answer again. At most
 * `maxEntries` answers are kept, the least recently used dropped first.
 */
export class AgentAnswers {
  private readonly kept: KeptAnswers<string>;

  constructor(
    private readonly write: (body: { data: Agent }) => string,
    maxEntries = 500,
  ) {
    this.kept = new KeptAnswers(maxEntries);
  }

  get size(): number {
    return this.kept.size;
  }

  /** The answer for the organisation's agent `id`, or null when the organisation has no such agent. */
  async find(db: Db, scope: OrgScope, id: string): Promise<string | null> {
    const statements = answerStatementsFor(db);
    const values = { orgId: scope.orgId, id };
    const key = `${scope.orgId}\u0000${id}`;
    if (this.kept.versionOf(key) !== undefined) {
      const [current] = await statements.version.execute(values);
      if (!current) return null;
      const kept = this.kept.get(key, current.version);
      if (kept !== undefined) return kept;
    }
    const [row] = await statements.row.execute(values);
    if (!row) return null;
    const agent = toApiAgent({
      id: row.id,
      isPublic: row.isPublic,
      cloneKey: row.cloneKey,
      providerAssistantId: row.providerAssistantId,
      clonedFrom: row.clonedFrom,
      createdAt: agents.createdAt.mapFromDriverValue(row.createdAt) as Date,
      updatedAt: agents.updatedAt.mapFromDriverValue(row.updatedAt) as Date,
      config: JSON.parse(row.config) as AgentRow["config"],
    });
    const body = this.write({ data: agent });
    this.kept.keep(key, row.version, body);
    return body;
  }
}

/** The organisation's clone of `sourceId`, if it has one (there is at most one: agents_org_cloned_from_unique). */
export function findCloneOf(scope: OrgScope, sourceId: string): Promise<AgentRow | null> {
  return scope.first(agents, eq(agents.clonedFrom, sourceId));
}

/**
 * An agent of any organisation, by id. Only for the two routes that then check the owner's consent:
 * cloning through a shared private link (its key) and the public agent profile (is_public).
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
