/**
 * The database schema (one schema for PGlite and PostgreSQL). The identity tables are the ones
 * better-auth's drizzle adapter writes in local mode; Clerk mode fills the same tables from verified
 * tokens, so every later table can reference users and organizations in both modes.
 *
 * Property names are what better-auth (and our code) use; SQL names are plural snake_case.
 * Organisation-owned rows carry `orgId` (SQL `org_id`) referencing organizations.id: that is the
 * column server/data/orgScope.ts filters on, so no query on them can forget the organisation.
 */
import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import type { AgentConfig } from "../../contract/agent";

const createdAt = () => timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow();
const updatedAt = () => timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow();

export const users = pgTable("users", {
  // better-auth generates ids in local mode; in Clerk mode this is Clerk's user id (user_…).
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  email: text("email").notNull().unique("users_email_unique"),
  emailVerified: boolean("email_verified").notNull().default(false),
  image: text("image"),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const organizations = pgTable("organizations", {
  // In Clerk mode this is Clerk's organisation id (org_…).
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  slug: text("slug").notNull().unique("organizations_slug_unique"),
  logo: text("logo"),
  metadata: text("metadata"),
  createdAt: createdAt(),
});

export const sessions = pgTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    token: text("token").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    activeOrganizationId: text("active_organization_id").references(() => organizations.id, { onDelete: "set null" }),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [uniqueIndex("sessions_token_unique").on(table.token), index("sessions_user_id_idx").on(table.userId)],
);

export const accounts = pgTable(
  "accounts",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    providerId: text("provider_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    accessToken: text("access_token"),
    refreshToken: text("refresh_token"),
    idToken: text("id_token"),
    accessTokenExpiresAt: timestamp("access_token_expires_at", { withTimezone: true, mode: "date" }),
    refreshTokenExpiresAt: timestamp("refresh_token_expires_at", { withTimezone: true, mode: "date" }),
    scope: text("scope"),
    // better-auth's password hash for email sign-in (provider "credential").
    password: text("password"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [index("accounts_user_id_idx").on(table.userId)],
);

export const verifications = pgTable(
  "verifications",
  {
    id: text("id").primaryKey(),
    identifier: text("identifier").notNull(),
    value: text("value").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [index("verifications_identifier_idx").on(table.identifier)],
);

/** better-auth's "member" model. Roles are stored as better-auth writes them: admin, member or owner. */
export const memberships = pgTable(
  "memberships",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text("role").notNull().default("member"),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex("memberships_org_user_unique").on(table.orgId, table.userId),
    index("memberships_user_id_idx").on(table.userId),
  ],
);

/** better-auth's "invitation" model; emails are stored lower-case. Status: pending, accepted, rejected, canceled. */
export const invitations = pgTable(
  "invitations",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    role: text("role"),
    status: text("status").notNull().default("pending"),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    inviterId: text("inviter_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (table) => [
    index("invitations_email_status_idx").on(table.email, table.status),
    index("invitations_org_id_idx").on(table.orgId),
    // At most one pending invitation per person and organisation: a new one refreshes it.
    uniqueIndex("invitations_pending_unique").on(table.orgId, table.email).where(sql`${table.status} = 'pending'`),
  ],
);

/** better-auth model name → our table (passed as the drizzle adapter's `schema` option). */
export const betterAuthTables = {
  user: users,
  session: sessions,
  account: accounts,
  verification: verifications,
  organization: organizations,
  member: memberships,
  invitation: invitations,
};

/**
 * Voice agents. The whole editable configuration (contract/agent.ts) is one JSON document: it is read
 * and written whole, and the provider mapping reads it whole; the columns beside it are what queries use.
 */
export const agents = pgTable(
  "agents",
  {
    // Random UUIDs: agent ids appear in public and shared links and must not be guessable.
    id: uuid("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    config: jsonb("config").$type<AgentConfig>().notNull(),
    isPublic: boolean("is_public").notNull().default(false),
    /** The voice provider's assistant id (null in sandbox mode). */
    providerAssistantId: text("provider_assistant_id"),
    /** The agent this one was cloned from through a shared private link. */
    clonedFrom: uuid("cloned_from"),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    // The agent list and "the most recently edited agent" read by organisation, newest first.
    index("agents_org_updated_idx").on(table.orgId, table.updatedAt),
    // One clone of a given agent per organisation (409 on a second).
    uniqueIndex("agents_org_cloned_from_unique").on(table.orgId, table.clonedFrom).where(sql`${table.clonedFrom} is not null`),
  ],
);

/** Knowledge-base files an agent can search during a call (agent config `knowledge_base_files` holds their ids). */
export const knowledgeBaseFiles = pgTable(
  "knowledge_base_files",
  {
    id: uuid("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    mimeType: text("mime_type").notNull(),
    sizeBytes: integer("size_bytes").notNull(),
    /** Where the bytes are under DATA_DIR in sandbox mode (null when the provider keeps them). */
    storageKey: text("storage_key"),
    /** The voice provider's file id (Vapi mode). */
    providerFileId: text("provider_file_id"),
    createdBy: text("created_by"),
    createdAt: createdAt(),
  },
  (table) => [index("knowledge_base_files_org_created_idx").on(table.orgId, table.createdAt)],
);

/**
 * Phone numbers an organisation calls from and answers on. Exactly one default per organisation
 * (a partial unique index backs the rule; the first number becomes the default).
 */
export const phoneNumbers = pgTable(
  "phone_numbers",
  {
    id: uuid("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** E.164. */
    number: text("number").notNull(),
    isDefault: boolean("is_default").notNull().default(false),
    /** vapi | twilio | vonage | telnyx | byo */
    provider: text("provider").notNull(),
    /** The agent that answers inbound calls on this number. */
    agentId: uuid("agent_id").references(() => agents.id, { onDelete: "set null" }),
    /** The voice provider's phone-number id (Vapi mode). */
    providerNumberId: text("provider_number_id"),
    /** Carrier credentials (e.g. Twilio account SID + auth token), encrypted at rest; never returned. */
    credentialsEncrypted: text("credentials_encrypted"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex("phone_numbers_org_number_unique").on(table.orgId, table.number),
    uniqueIndex("phone_numbers_org_default_unique").on(table.orgId).where(sql`${table.isDefault}`),
  ],
);

/**
 * Calls: web, inbound and outbound. Money is kept in micro-dollars (1 USD = 1,000,000) so sums are exact.
 * `startedAt` is when the call was placed (set at creation, corrected by the provider's report).
 */
export const calls = pgTable(
  "calls",
  {
    id: uuid("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** web | inbound | outbound */
    type: text("type").notNull(),
    /** queued | ringing | in-progress | forwarding | ended */
    status: text("status").notNull(),
    agentId: uuid("agent_id").references(() => agents.id, { onDelete: "set null" }),
    phoneNumberId: uuid("phone_number_id").references(() => phoneNumbers.id, { onDelete: "set null" }),
    customerNumber: text("customer_number"),
    customerName: text("customer_name"),
    startedAt: timestamp("started_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    endedAt: timestamp("ended_at", { withTimezone: true, mode: "date" }),
    durationSeconds: integer("duration_seconds"),
    endedReason: text("ended_reason"),
    costMicros: bigint("cost_micros", { mode: "number" }),
    costBreakdown: jsonb("cost_breakdown").$type<Record<string, unknown>>(),
    transcript: text("transcript"),
    /** [{role, message, time, secondsFromStart}] */
    messages: jsonb("messages").$type<unknown[]>(),
    recordingUrl: text("recording_url"),
    stereoRecordingUrl: text("stereo_recording_url"),
    summary: text("summary"),
    structuredData: jsonb("structured_data").$type<Record<string, unknown>>(),
    successEvaluation: text("success_evaluation"),
    campaignId: uuid("campaign_id"),
    providerCallId: text("provider_call_id"),
    /** Placed by the sandbox provider: labelled "Sandbox" wherever a person sees it. */
    isSandbox: boolean("is_sandbox").notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    // The call-log list: one organisation, newest first.
    index("calls_org_started_idx").on(table.orgId, table.startedAt),
    // The public-call daily cap per agent.
    index("calls_agent_started_idx").on(table.agentId, table.startedAt),
    uniqueIndex("calls_provider_call_id_unique").on(table.providerCallId),
  ],
);

/** One wallet per organisation: the balance, kept in step with the ledger in the same transaction. */
export const wallets = pgTable("wallets", {
  orgId: text("org_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  balanceMicros: bigint("balance_micros", { mode: "number" }).notNull().default(0),
  updatedAt: updatedAt(),
});

/** Credits (positive) and debits (negative). A call is debited once: the unique index on call_id. */
export const walletLedger = pgTable(
  "wallet_ledger",
  {
    id: uuid("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    amountMicros: bigint("amount_micros", { mode: "number" }).notNull(),
    /** starting-credit | top-up | call | adjustment */
    kind: text("kind").notNull(),
    callId: uuid("call_id").references(() => calls.id, { onDelete: "set null" }),
    description: text("description").notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    index("wallet_ledger_org_created_idx").on(table.orgId, table.createdAt),
    uniqueIndex("wallet_ledger_call_unique").on(table.callId).where(sql`${table.callId} is not null`),
  ],
);

/** Webhook events already processed: each (call, event) is processed once, however often it arrives. */
export const webhookEvents = pgTable("webhook_events", {
  eventKey: text("event_key").primaryKey(),
  receivedAt: createdAt(),
});

/** Web-call links: a public page (/web-call/:slug) where a recipient talks to an agent in the browser. */
export const webCallLinks = pgTable(
  "web_call_links",
  {
    id: uuid("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** Random and unguessable: it is the public address of the page. */
    slug: text("slug").notNull().unique("web_call_links_slug_unique"),
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    callTitle: text("call_title").notNull(),
    recipientName: text("recipient_name").notNull(),
    subTitle: text("sub_title").notNull(),
    /** [{id, icon, title, description}] in order. */
    instructions: jsonb("instructions").$type<{ id: string; icon: string; title: string; description: string }[]>().notNull(),
    createdBy: text("created_by"),
    createdAt: createdAt(),
  },
  (table) => [index("web_call_links_org_created_idx").on(table.orgId, table.createdAt)],
);
