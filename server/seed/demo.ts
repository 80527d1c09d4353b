/**
 * The demo account, so a fresh install can be tried at once: an admin in "Demo Organisation".
 * Created only with local accounts, when SEED_DEMO is on and the users table is empty.
 */
import { randomUUID } from "node:crypto";
import { count, eq } from "drizzle-orm";
import type { AppConfig } from "../config";
import type { Db } from "../db/client";
import { accounts, memberships, organizations, users } from "../db/schema";

export const DEMO_ORGANISATION = { name: "Demo Organisation", slug: "demo-organisation" } as const;

export interface DemoCredentials {
  email: string;
  password: string;
  organisation: string;
}

export async function seedDemo(db: Db, config: AppConfig): Promise<DemoCredentials | null> {
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
  });
  return { email: config.demoEmail, password: config.demoPassword, organisation: DEMO_ORGANISATION.name };
}
