/**
 * The demo account, so a fresh install can be tried at once: an admin in "Demo Organisation".
 * Created only with local accounts, when SEED_DEMO is on and the users table is empty. The organisation
 * comes with demo data (./demo-calls.ts): 3 agents, 3 sandbox numbers, 2,000 calls over 90 days.
 */
import { randomUUID } from "node:crypto";
import { count, eq, sql } from "drizzle-orm";
import type { AppConfig } from "../config";
import type { Db } from "../db/client";
import { accounts, memberships, organizations, users } from "../db/schema";
import { describeDemoData, generateDemoData, insertDemoData, type DemoDataSummary } from "./demo-calls";

export const DEMO_ORGANISATION = { name: "Demo Organisation", slug: "demo-organisation" } as const;

export interface DemoCredentials {
  email: string;
  password: string;
  organisation: string;
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
}

export async function seedDemo(db: Db, config: AppConfig, options: SeedDemoOptions = {}): Promise<DemoCredentials | null> {
  if (!config.seedDemo || config.modes.auth !== "local") return null;
  const [existing] = await db.select({ n: count() }).from(users);
  if ((existing?.n ?? 0) > 0) return null;

  const userId = randomUUID();
  const orgId = randomUUID();
  // better-auth's own hasher (scrypt), so the demo signs in like any account made by sign-up.
  const { hashPassword } = await import("better-auth/crypto");
  const passwordHash = await hashPassword(config.demoPassword);
  const [slugTaken] = await db.select({ id: organizations.id }).from(organizations).where(eq(organizations.slug, DEMO_ORGANISATION.slug));
  const slug = slugTaken ? `${DEMO_ORGANISATION.slug}-${orgId.slice(0, 8)}` : DEMO_ORGANISATION.slug;
  await db.transaction(async (tx) => {
    await tx.insert(users).values({ id: userId, name: "Demo Admin", email: config.demoEmail, emailVerified: true });
    await tx.insert(accounts).values({ id: randomUUID(), accountId: userId, providerId: "credential", userId, password: passwordHash });
    await tx.insert(organizations).values({ id: orgId, name: DEMO_ORGANISATION.name, slug });
    await tx.insert(memberships).values({ id: randomUUID(), orgId, userId, role: "admin" });
    if (options.withData === false) return;
    const started = performance.now();
    const data = generateDemoData({
      orgId,
      createdBy: userId,
      now: options.now ?? new Date(),
      startingCreditMicros: Math.round(config.calls.startingCreditUsd * 1_000_000),
    });
    await insertDemoData(tx, data);
    const summary = { agents: data.agents.length, numbers: data.phoneNumbers.length, calls: data.calls.length, ms: Math.round(performance.now() - started) };
    options.onDemoData?.(summary);
    options.print?.(describeDemoData(summary));
  });
  // Fresh statistics for the planner: without them it takes 2,000 calls for a couple of dozen and reads
  // them all for a page of 20 (PostgreSQL's autovacuum would catch up within a minute; PGlite has none).
  if (options.withData !== false) await db.execute(sql`analyze calls, agents, phone_numbers, wallet_ledger`);
  return { email: config.demoEmail, password: config.demoPassword, organisation: DEMO_ORGANISATION.name };
}
