/**
 * Web-call links: rows, slugs and the two API shapes (the organisation's view and the public page's).
 * Every query on the caller's links goes through the organisation scope; the one cross-organisation
 * read is `findLinkBySlug`, for the public page, where the unguessable slug is the capability.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { desc, eq } from "drizzle-orm";
import { webCallPagePath, type WebCallDetails, type WebCallIcon, type WebCallLink } from "../../contract";
import type { OrgScope } from "../data/orgScope";
import type { Db } from "../db/client";
import { agents, webCallLinks } from "../db/schema";
import type { VoiceProvider } from "../voice/types";
import { renderVariables } from "../voice/variables";

export type WebCallLinkRow = typeof webCallLinks.$inferSelect;
type AgentRow = typeof agents.$inferSelect;
/** What the public page needs of the link's agent. */
export type LinkAgent = Pick<AgentRow, "id" | "orgId" | "providerAssistantId" | "config">;

/** 16 random bytes as base64url: 22 URL-safe characters, 128 bits nobody can guess. */
export function newSlug(): string {
  return randomBytes(16).toString("base64url");
}

export function toApiLink(row: WebCallLinkRow): WebCallLink {
  return {
    id: row.id,
    slug: row.slug,
    url: webCallPagePath(row.slug),
    agent_id: row.agentId,
    call_title: row.callTitle,
    recipient_name: row.recipientName,
    sub_title: row.subTitle,
    instructions: row.instructions.map(({ id, icon, title, description }) => ({ id, icon: icon as WebCallIcon, title, description })),
    created_at: row.createdAt.toISOString(),
  };
}

/** The variables a link's call is started with (the page sends the same: assistantOverrides.variableValues). */
export function linkVariables(row: Pick<WebCallLinkRow, "recipientName">): Record<string, string> {
  return { name: row.recipientName };
}

/**
 * The public page's details (spec §3). `assistantId` is what the browser starts the call with: the
 * agent's Vapi assistant in Vapi mode (when it has one), otherwise our agent id (the sandbox web client
 * works with our ids). `firstMessage` is the agent's welcome message as the call says it, rendered as Vapi
 * renders it (`{{ name | default: "there" }}`: the link's recipient).
 */
export function toWebCallDetails(row: WebCallLinkRow, agent: Pick<LinkAgent, "id" | "providerAssistantId" | "config">, voice: Pick<VoiceProvider, "mode">): WebCallDetails {
  return {
    callTitle: row.callTitle,
    name: row.recipientName,
    subTitle: row.subTitle,
    assistantId: voice.mode === "vapi" && agent.providerAssistantId ? agent.providerAssistantId : agent.id,
    instructions: toApiLink(row).instructions,
    firstMessage: renderVariables(agent.config.agent_welcome_message, linkVariables(row)).trim(),
  };
}

export interface NewLink {
  agentId: string;
  callTitle: string;
  recipientName: string;
  subTitle: string;
  instructions: { icon: WebCallIcon; title: string; description: string }[];
  createdBy: string;
}

export function insertLink(scope: OrgScope, link: NewLink, slug = newSlug()): Promise<WebCallLinkRow> {
  return scope.insert(webCallLinks, {
    id: randomUUID(),
    slug,
    agentId: link.agentId,
    callTitle: link.callTitle,
    recipientName: link.recipientName,
    subTitle: link.subTitle,
    instructions: link.instructions.map((instruction) => ({ id: randomUUID(), ...instruction })),
    createdBy: link.createdBy,
  });
}

/** The organisation's links, newest first. */
export async function listLinks(scope: OrgScope, page: number, limit: number): Promise<{ rows: WebCallLinkRow[]; total: number }> {
  const [rows, total] = await Promise.all([
    scope.select(webCallLinks, { orderBy: [desc(webCallLinks.createdAt), desc(webCallLinks.id)], limit, offset: (page - 1) * limit }),
    scope.count(webCallLinks),
  ]);
  return { rows, total };
}

/** A link of any organisation by its slug, with its agent. Only for the public page. */
export async function findLinkBySlug(db: Db, slug: string): Promise<{ link: WebCallLinkRow; agent: LinkAgent } | null> {
  const rows = await db
    .select({ link: webCallLinks, agent: { id: agents.id, orgId: agents.orgId, providerAssistantId: agents.providerAssistantId, config: agents.config } })
    .from(webCallLinks)
    .innerJoin(agents, eq(agents.id, webCallLinks.agentId))
    .where(eq(webCallLinks.slug, slug))
    .limit(1);
  return rows[0] ?? null;
}
