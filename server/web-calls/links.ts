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

export type WebCallLinkRow = typeof webCallLinks.$inferSelect;
type AgentRow = typeof agents.$inferSelect;

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

/**
 * The public page's details (spec §3). `assistantId` is what the browser starts the call with: the
 * agent's Vapi assistant in Vapi mode (when it has one), otherwise our agent id (the sandbox web client
 * works with our ids).
 */
export function toWebCallDetails(row: WebCallLinkRow, agent: Pick<AgentRow, "id" | "providerAssistantId">, voice: Pick<VoiceProvider, "mode">): WebCallDetails {
  return {
    callTitle: row.callTitle,
    name: row.recipientName,
    subTitle: row.subTitle,
    assistantId: voice.mode === "vapi" && agent.providerAssistantId ? agent.providerAssistantId : agent.id,
    instructions: toApiLink(row).instructions,
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
export async function findLinkBySlug(db: Db, slug: string): Promise<{ link: WebCallLinkRow; agent: Pick<AgentRow, "id" | "providerAssistantId"> } | null> {
  const rows = await db
    .select({ link: webCallLinks, agent: { id: agents.id, providerAssistantId: agents.providerAssistantId } })
    .from(webCallLinks)
    .innerJoin(agents, eq(agents.id, webCallLinks.agentId))
    .where(eq(webCallLinks.slug, slug))
    .limit(1);
  return rows[0] ?? null;
}
