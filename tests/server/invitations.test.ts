import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../server/db/client";
import { invitations } from "../../server/db/schema";
import { addMember, buildTestApp, createOrganisation, invite, migratedDatabase, signUp, uniqueEmail } from "./helpers";

let database: Database;
let app: FastifyInstance;
let adminToken: string;
let memberToken: string;
let memberEmail: string;
let orgId: string;
let otherOrgId: string;

async function invitationRows(organisation: string) {
  return database.db.select().from(invitations).where(eq(invitations.orgId, organisation));
}

beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database));
  adminToken = (await signUp(app)).token;
  orgId = await createOrganisation(app, adminToken, "Acme");
  // A member: invited with the default role, then signed up.
  memberEmail = uniqueEmail("member");
  memberToken = (await addMember(app, adminToken, orgId, memberEmail)).token;
  // An organisation the admin is not part of.
  otherOrgId = await createOrganisation(app, (await signUp(app)).token, "Elsewhere");
});
afterAll(async () => {
  await app.close();
  await database.close();
});

describe("POST /api/organization/:organizationId/invite", () => {
  it("an admin invites; the role defaults to org:member and the invitation lasts 7 days", async () => {
    const email = uniqueEmail("default-role");
    const response = await invite(app, adminToken, orgId, { email_address: email });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: "success", invitation_url: expect.stringMatching(/^http:\/\/localhost:3000\/invitation\//) });
    const [row] = (await invitationRows(orgId)).filter((r) => r.email === email);
    expect(row).toMatchObject({ role: "member", status: "pending" });
    const days = (row!.expiresAt.getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThanOrEqual(7);
  });

  it("stores org:admin as better-auth's admin role", async () => {
    const email = uniqueEmail("admin-role");
    expect((await invite(app, adminToken, orgId, { email_address: email, role: "org:admin" })).statusCode).toBe(200);
    const [row] = (await invitationRows(orgId)).filter((r) => r.email === email);
    expect(row?.role).toBe("admin");
  });

  it("refreshes a pending invitation for the same email instead of duplicating it", async () => {
    const email = uniqueEmail("twice");
    expect((await invite(app, adminToken, orgId, { email_address: email })).statusCode).toBe(200);
    await database.db.update(invitations).set({ expiresAt: new Date(Date.now() + 60_000) }).where(eq(invitations.email, email));
    expect((await invite(app, adminToken, orgId, { email_address: email.toUpperCase(), role: "org:admin" })).statusCode).toBe(200);
    const rows = (await invitationRows(orgId)).filter((r) => r.email === email);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.role).toBe("admin");
    expect(rows[0]!.expiresAt.getTime()).toBeGreaterThan(Date.now() + 6 * 86_400_000);
  });

  it("two simultaneous invitations for one email leave one pending invitation, both answered success", async () => {
    const email = uniqueEmail("race");
    const responses = await Promise.all([
      invite(app, adminToken, orgId, { email_address: email }),
      invite(app, adminToken, orgId, { email_address: email, role: "org:admin" }),
      invite(app, adminToken, orgId, { email_address: email }),
    ]);
    expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect((await invitationRows(orgId)).filter((r) => r.email === email)).toHaveLength(1);
  });

  describe("refused requests answer an error and write nothing", () => {
    // Each case: who calls, on which organisation, with what body → the status and body expected.
    // (Functions, because the tokens and ids exist only once beforeAll has run.)
    const refusals: { name: string; token: () => string | null; org: () => string; payload: () => object; status: number; body: () => unknown }[] = [
      {
        name: "a member may not invite (403)",
        token: () => memberToken,
        org: () => orgId,
        payload: () => ({ email_address: uniqueEmail() }),
        status: 403,
        body: () => ({ detail: "Only organisation admins can invite members.", code: "forbidden" }),
      },
      {
        name: "another organisation's id answers 404, as if it did not exist",
        token: () => adminToken,
        org: () => otherOrgId,
        payload: () => ({ email_address: uniqueEmail() }),
        status: 404,
        body: () => ({ detail: "Organisation not found", code: "not_found" }),
      },
      {
        name: "a bad email is a 400 naming the field",
        token: () => adminToken,
        org: () => orgId,
        payload: () => ({ email_address: "not-an-email" }),
        status: 400,
        body: () => ({ detail: "email_address: must be a valid email address", code: "validation_error" }),
      },
      {
        name: "a missing email is a 400 naming the field",
        token: () => adminToken,
        org: () => orgId,
        payload: () => ({ role: "org:member" }),
        status: 400,
        body: () => ({ detail: "email_address: is required", code: "validation_error" }),
      },
      {
        name: "no body at all is a 400",
        token: () => adminToken,
        org: () => orgId,
        payload: () => undefined as unknown as object,
        status: 400,
        body: () => ({ detail: "body: is required", code: "validation_error" }),
      },
      {
        name: "a role other than org:admin / org:member is a 400",
        token: () => adminToken,
        org: () => orgId,
        payload: () => ({ email_address: uniqueEmail(), role: "org:owner" }),
        status: 400,
        body: () => ({ detail: "role: must be one of org:admin, org:member", code: "validation_error" }),
      },
      {
        name: "an unknown field is a 400",
        token: () => adminToken,
        org: () => orgId,
        payload: () => ({ email_address: uniqueEmail(), organization_id: otherOrgId }),
        status: 400,
        body: () => ({ detail: "organization_id: is not a known field", code: "validation_error" }),
      },
      {
        name: "inviting someone already a member is a 409",
        token: () => adminToken,
        org: () => orgId,
        payload: () => ({ email_address: memberEmail.toUpperCase() }),
        status: 409,
        body: () => ({ detail: `${memberEmail} is already a member of this organisation.`, code: "conflict" }),
      },
      {
        name: "no token is a 401",
        token: () => null,
        org: () => orgId,
        payload: () => ({ email_address: uniqueEmail() }),
        status: 401,
        body: () => expect.objectContaining({ code: "unauthorized" }),
      },
    ];

    it.each(refusals)("$name", async (refusal) => {
      const everything = async () => [...(await invitationRows(orgId)), ...(await invitationRows(otherOrgId))];
      const before = await everything();
      const response = await invite(app, refusal.token(), refusal.org(), refusal.payload() as Record<string, unknown>);
      expect(response.statusCode).toBe(refusal.status);
      expect(response.json()).toEqual(refusal.body());
      expect(await everything()).toEqual(before);
    });
  });

  it("a made-up organisation id answers exactly like another organisation's", async () => {
    const real = await invite(app, adminToken, otherOrgId, { email_address: uniqueEmail() });
    const madeUp = await invite(app, adminToken, "org-that-does-not-exist", { email_address: uniqueEmail() });
    expect(madeUp.statusCode).toBe(real.statusCode);
    expect(madeUp.json()).toEqual(real.json());
  });

  it("identity comes from the token, not from the body or the query", async () => {
    const response = await app.inject({
      method: "POST",
      url: `/api/organization/${otherOrgId}/invite?orgId=${otherOrgId}&userId=someone`,
      headers: { authorization: `Bearer ${adminToken}` },
      payload: { email_address: uniqueEmail() },
    });
    expect(response.statusCode).toBe(404);
  });
});
