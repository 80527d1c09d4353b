/**
 * The demo account, so a fresh install can be tried at once: an admin in "Demo Organisation".
 * Created only with local accounts, when SEED_DEMO is on and the users table is empty. The organisation
 * comes with demo data (./demo-calls.ts): 3 agents, 3 sandbox numbers, 2,000 calls over 90 days, and
 * two campaigns made of some of those calls (./demo-campaigns.ts), a calendar with appointments in the
 * coming week, some booked by the Appointment Setter on its calls (./demo-appointments.ts), and, in sandbox
 * voice mode, a demo store with orders in every state and the order follow-up that called them (./demo-store.ts).
 *
 * The README publishes the demo's password, so an account with it must never be reachable from other
 * machines: while HOST is loopback (the default) the demo gets DEMO_PASSWORD; bound to any other
 * interface it gets a random password instead (unless DEMO_PASSWORD was set to one of the operator's own),
 * printed once at start-up. An existing demo account that still has the published password (from an
 * earlier run on loopback) gets a new one the first time the server starts on another interface, and its
 * sessions are ended (see secureDemoAccount).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { and, count, eq, sql } from "drizzle-orm";
import { isLoopbackHost, PUBLISHED_DEMO_PASSWORD, type AppConfig } from "../config";
import type { Db } from "../db/client";
import { accounts, billingAccounts, memberships, organizations, sessions, users } from "../db/schema";
import { describeDemoData, generateDemoData, insertDemoData, type DemoDataSummary } from "./demo-calls";
import { generateDemoAppointments, insertDemoAppointments } from "./demo-appointments";
import { generateDemoCampaigns, insertDemoCampaigns } from "./demo-campaigns";
import { generateDemoStore, insertDemoStore } from "./demo-store";
import type { SecretBox } from "../crypto/credentials";

export const DEMO_ORGANISATION = { name: "Demo Organisation", slug: "demo-organisation" } as const;

export interface DemoCredentials {
  email: string;
  password: string;
  organisation: string;
  /** Why the password is not the published one, for the start-up log (null: it is DEMO_PASSWORD as given). */
  note: string | null;
}

/** What a demo account made now gets: DEMO_PASSWORD, unless that is the published one and others can connect. */
function demoPassword(config: AppConfig): { password: string; note: string | null } {
  if (isLoopbackHost(config.host) || config.demoPassword !== PUBLISHED_DEMO_PASSWORD) return { password: config.demoPassword, note: null };
  return {
    password: randomBytes(12).toString("base64url"),
    note: `HOST=${config.host} is reachable from other machines, so the demo account does not get the published password: this random one is shown only now.`,
  };
}

/**
 * On a bind other machines can reach: if the demo account (DEMO_EMAIL) still has the published password,
 * it gets a new one (random, or DEMO_PASSWORD when the operator set their own) and every session it had
 * ends. Answers the new credentials to print, or null when there was nothing to change. Runs whatever
 * SEED_DEMO says: an account made by an earlier run is just as exposed.
 */
export async function secureDemoAccount(db: Db, config: AppConfig): Promise<DemoCredentials | null> {
  if (config.modes.auth !== "local" || isLoopbackHost(config.host)) return null;
  const [demo] = await db
    .select({ userId: users.id, accountId: accounts.id, hash: accounts.password })
    .from(users)
    .innerJoin(accounts, and(eq(accounts.userId, users.id), eq(accounts.providerId, "credential")))
    .where(eq(users.email, config.demoEmail))
    .limit(1);
  if (!demo?.hash) return null;
  const { hashPassword, verifyPassword } = await import("better-auth/crypto");
  if (!(await verifyPassword({ hash: demo.hash, password: PUBLISHED_DEMO_PASSWORD }))) return null;
  const { password } = demoPassword(config);
  const hash = await hashPassword(password);
  await db.transaction(async (tx) => {
    await tx.update(accounts).set({ password: hash, updatedAt: new Date() }).where(eq(accounts.id, demo.accountId));
    // Whoever signed in with the published password is signed out.
    await tx.delete(sessions).where(eq(sessions.userId, demo.userId));
  });
  const [org] = await db
    .select({ name: organizations.name })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.orgId))
    .where(eq(memberships.userId, demo.userId))
    .limit(1);
  return {
    email: config.demoEmail,
    password,
    organisation: org?.name ?? DEMO_ORGANISATION.name,
    note: `HOST=${config.host} is reachable from other machines, so the demo account's published password was replaced${password === config.demoPassword ? " by DEMO_PASSWORD" : " by this random one, shown only now"}, and its sessions were ended.`,
  };
}

export interface SeedDemoOptions {
  /** Seed the agents, numbers, calls and ledger too (default true). */
  withData?: boolean;
  /** The end of the 90 days of calls (default: the clock). */
  now?: Date;
  /** Where the one line describing the demo data goes (server/index.ts passes its printer). */
  print?: (line: string) => void;
  /** Told what was seeded. */
  onDemoData?: (summary: DemoDataSummary) => void;
  /**
   * The app's secret box (app.secretBox): the demo store's webhook secret is sealed with it. Without it, or
   * outside sandbox voice mode (demo numbers must never be dialled for real), no demo store is seeded.
   */
  box?: SecretBox;
}

export async function seedDemo(db: Db, config: AppConfig, options: SeedDemoOptions = {}): Promise<DemoCredentials | null> {
  if (!config.seedDemo || config.modes.auth !== "local") return null;
  const [existing] = await db.select({ n: count() }).from(users);
  if ((existing?.n ?? 0) > 0) return null;

  const userId = randomUUID();
  const orgId = randomUUID();
  // better-auth's own hasher (scrypt), so the demo signs in like any account made by sign-up.
  const { hashPassword } = await import("better-auth/crypto");
  const { password, note } = demoPassword(config);
  const passwordHash = await hashPassword(password);
  const [slugTaken] = await db.select({ id: organizations.id }).from(organizations).where(eq(organizations.slug, DEMO_ORGANISATION.slug));
  const slug = slugTaken ? `${DEMO_ORGANISATION.slug}-${orgId.slice(0, 8)}` : DEMO_ORGANISATION.slug;
  await db.transaction(async (tx) => {
    await tx.insert(users).values({ id: userId, name: "Demo Admin", email: config.demoEmail, emailVerified: true });
    await tx.insert(accounts).values({ id: randomUUID(), accountId: userId, providerId: "credential", userId, password: passwordHash });
    await tx.insert(organizations).values({ id: orgId, name: DEMO_ORGANISATION.name, slug });
    await tx.insert(memberships).values({ id: randomUUID(), orgId, userId, role: "admin" });
    // The demo's data is over Free's limits: on a Free install it is on Starter (a sandbox plan, no
    // subscription at the provider: a change of plan from it goes through checkout), else on DEFAULT_PLAN.
    const plan = config.billing.defaultPlan === "free" ? "starter" : config.billing.defaultPlan;
    await tx.insert(billingAccounts).values({ orgId, plan, subscriptionStatus: "active", currentPeriodEnd: plan === "starter" ? new Date(Date.now() + 30 * 86_400_000) : null });
    if (options.withData === false) return;
    const started = performance.now();
    const now = options.now ?? new Date();
    const data = generateDemoData({
      orgId,
      createdBy: userId,
      now,
      startingCreditMicros: Math.round(config.calls.startingCreditUsd * 1_000_000),
    });
    const campaignData = generateDemoCampaigns(data, { orgId, createdBy: userId, createdByName: "Demo Admin", now });
    // Before the calls are written: the store's orders take some of them (their numbers, campaign and outcome).
    const box = options.box;
    const storeData = box && config.modes.voice === "sandbox" ? generateDemoStore(data, campaignData, { orgId, createdBy: userId, now }) : null;
    await insertDemoData(tx, data);
    await insertDemoCampaigns(tx, campaignData);
    await insertDemoAppointments(tx, generateDemoAppointments(data, { orgId, createdBy: userId, now }));
    if (box && storeData) await insertDemoStore(tx, box, storeData);
    const summary = { agents: data.agents.length, numbers: data.phoneNumbers.length, calls: data.calls.length, ms: Math.round(performance.now() - started) };
    options.onDemoData?.(summary);
    options.print?.(describeDemoData(summary));
  });
  // Fresh statistics for the planner: without them it takes 2,000 calls for a couple of dozen and reads
  // them all for a page of 20 (PostgreSQL's autovacuum would catch up within a minute; PGlite has none).
  if (options.withData !== false) await db.execute(sql`analyze calls, agents, phone_numbers, wallet_ledger`);
  return { email: config.demoEmail, password, organisation: DEMO_ORGANISATION.name, note };
}
