import { waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { LocalAuthSessionStore } from "../../src/auth/local";
import { installFetchFake, json, type FetchFake } from "./fetch-fake";

const USER = { id: "u1", name: "Ada Lovelace", email: "ada@example.com", image: null };

/** better-auth's endpoints as the organization plugin answers them, over a little mutable state. */
function betterAuth(fetch: FetchFake, initial: { token?: string | null; activeOrganizationId?: string | null } = {}) {
  const state = {
    token: "token-A" as string | null,
    activeOrganizationId: "org_2" as string | null,
    organizations: [
      { id: "org_1", name: "Analytical Engines", role: "member" },
      { id: "org_2", name: "Difference Co", role: "owner" },
    ],
    ...initial,
  };
  fetch
    .on("GET", "/api/auth/get-session", () =>
      json(
        state.token
          ? { session: { id: "s1", token: state.token, activeOrganizationId: state.activeOrganizationId }, user: USER }
          : null,
      ),
    )
    .on("GET", "/api/auth/token", () =>
      state.token
        ? json({ data: { token: `short-lived-${state.token}`, expiresAt: "2030-01-01T00:05:00.000Z", userId: USER.id, activeOrganizationId: state.activeOrganizationId } })
        : json({ detail: "Sign in again: your session has ended.", code: "unauthorized" }, 401),
    )
    .on("GET", "/api/auth/organization/list", () =>
      json(state.organizations.map(({ id, name }) => ({ id, name, slug: id }))),
    )
    .on("GET", "/api/auth/organization/get-active-member-role", (request) =>
      json({ role: state.organizations.find((org) => org.id === request.query.get("organizationId"))?.role }),
    )
    .on("POST", "/api/auth/organization/set-active", (request) => {
      state.activeOrganizationId = (request.body as { organizationId: string }).organizationId;
      return json({ id: state.activeOrganizationId });
    })
    .on("POST", "/api/auth/organization/create", (request) => {
      const { name, slug } = request.body as { name: string; slug: string };
      state.organizations.push({ id: "org_new", name, role: "owner" });
      return json({ id: "org_new", name, slug });
    })
    .on("POST", "/api/auth/organization/leave", (request) => {
      const { organizationId } = request.body as { organizationId: string };
      state.organizations = state.organizations.filter((org) => org.id !== organizationId);
      if (state.activeOrganizationId === organizationId) state.activeOrganizationId = null;
      return json({ id: "m1" });
    });
  return state;
}

async function loadedStore() {
  const store = new LocalAuthSessionStore();
  store.subscribe(() => undefined);
  await waitFor(() => expect(store.getSnapshot().status).not.toBe("loading"));
  return store;
}

describe("the local (better-auth) session", () => {
  it("reads the user, the organisations with the user's role in each, and the active one", async () => {
    betterAuth(installFetchFake());
    const session = (await loadedStore()).getSnapshot();

    expect(session.status).toBe("signedIn");
    expect(session.user).toEqual({ id: "u1", name: "Ada Lovelace", email: "ada@example.com" });
    expect(session.organizations).toEqual([
      { id: "org_1", name: "Analytical Engines", role: "org:member" },
      { id: "org_2", name: "Difference Co", role: "org:admin" },
    ]);
    expect(session.activeOrganizationId).toBe("org_2");
  });

  it("marks the active organisation when the user is its only admin (better-auth would refuse to let them leave)", async () => {
    const fetch = installFetchFake();
    const state = betterAuth(fetch);
    state.organizations = [
      { id: "org_1", name: "Analytical Engines", role: "admin" },
      { id: "org_2", name: "Difference Co", role: "admin" },
      { id: "org_3", name: "Jacquard", role: "member" },
    ];
    state.activeOrganizationId = "org_1";
    const admins: Record<string, number> = { org_1: 1, org_2: 1, org_3: 1 };
    fetch.on("GET", "/api/auth/organization/list-members", (request) =>
      json({ members: [], total: admins[request.query.get("organizationId")!] }),
    );
    const store = await loadedStore();

    expect(store.getSnapshot().organizations).toEqual([
      { id: "org_1", name: "Analytical Engines", role: "org:admin", onlyAdmin: true },
      { id: "org_2", name: "Difference Co", role: "org:admin" },
      { id: "org_3", name: "Jacquard", role: "org:member" },
    ]);
    // Counted, not listed, and only for the active organisation (the one the switcher can leave).
    const asked = () => fetch.to("GET", "/api/auth/organization/list-members").map((request) => Object.fromEntries(request.query));
    expect(asked()).toEqual([{ organizationId: "org_1", filterField: "role", filterOperator: "eq", filterValue: "admin", limit: "1" }]);

    // Switched to org_2, where another admin exists: it is counted there, and not marked.
    admins.org_2 = 2;
    await store.getSnapshot().setActive("org_2");
    await waitFor(() => expect(store.getSnapshot().activeOrganizationId).toBe("org_2"));
    await waitFor(() => expect(asked().at(-1)).toMatchObject({ organizationId: "org_2" }));
    expect(store.getSnapshot().organizations.some((org) => org.onlyAdmin)).toBe(false);
  });

  it("does not load everything again on each token refresh while the session's organisation is one the user left", async () => {
    const fetch = installFetchFake();
    const state = betterAuth(fetch);
    state.activeOrganizationId = "org_gone";
    const store = await loadedStore();
    expect(store.getSnapshot().activeOrganizationId).toBeNull();
    const reads = fetch.to("GET", "/api/auth/get-session").length;

    for (let i = 0; i < 3; i++) await store.getSnapshot().getToken();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fetch.to("GET", "/api/auth/get-session")).toHaveLength(reads);
  });

  it("is signed out when better-auth has no session", async () => {
    betterAuth(installFetchFake(), { token: null });
    expect((await loadedStore()).getSnapshot()).toMatchObject({ status: "signedOut", user: null, organizations: [] });
  });

  it("hands out a short-lived token from GET /api/auth/token (the HttpOnly cookie's session), asking each time", async () => {
    const fetch = installFetchFake();
    const server = betterAuth(fetch);
    const store = await loadedStore();

    const sessionReads = fetch.to("GET", "/api/auth/get-session").length;
    expect(await store.getSnapshot().getToken()).toBe("short-lived-token-A");
    server.token = "token-B";
    expect(await store.getSnapshot().getToken()).toBe("short-lived-token-B");
    expect(fetch.to("GET", "/api/auth/token")).toHaveLength(2);
    // A token comes from /api/auth/token alone: get-session (where a session token could be read) is not asked.
    expect(fetch.to("GET", "/api/auth/get-session")).toHaveLength(sessionReads);
  });

  it("notices on a token refresh that the organisation was switched elsewhere", async () => {
    const fetch = installFetchFake();
    const server = betterAuth(fetch);
    const store = await loadedStore();
    expect(store.getSnapshot().activeOrganizationId).toBe("org_2");

    server.activeOrganizationId = "org_1";
    await store.getSnapshot().getToken();
    await waitFor(() => expect(store.getSnapshot().activeOrganizationId).toBe("org_1"));
  });

  it("notices on a token refresh that the session ended elsewhere", async () => {
    const server = betterAuth(installFetchFake());
    const store = await loadedStore();

    server.token = null;
    expect(await store.getSnapshot().getToken()).toBeNull();
    await waitFor(() => expect(store.getSnapshot().status).toBe("signedOut"));
  });

  it("switches, creates and leaves organisations through better-auth", async () => {
    const fetch = installFetchFake();
    betterAuth(fetch);
    const store = await loadedStore();

    await store.getSnapshot().setActive("org_1");
    expect(store.getSnapshot().activeOrganizationId).toBe("org_1");

    const created = await store.getSnapshot().createOrganization("Lovelace & Babbage");
    expect(created).toEqual({ id: "org_new", name: "Lovelace & Babbage", role: "org:admin" });
    const body = fetch.to("POST", "/api/auth/organization/create")[0]?.body as { name: string; slug: string };
    expect(body.name).toBe("Lovelace & Babbage");
    expect(body.slug).toMatch(/^lovelace-babbage-[a-z0-9]{1,6}$/);
    expect(store.getSnapshot().activeOrganizationId).toBe("org_new");

    await store.getSnapshot().leaveOrganization("org_new");
    expect(store.getSnapshot().activeOrganizationId).toBeNull();
    expect(store.getSnapshot().organizations.map((org) => org.id)).toEqual(["org_1", "org_2"]);
  });

  it("says too many attempts when sign-in is throttled (429), with the server's sentence or its own", async () => {
    const fetch = installFetchFake();
    betterAuth(fetch, { token: null });
    const sentence = "Too many failed sign-in attempts: try again in 15 minutes.";
    fetch.on("POST", "/api/auth/sign-in/email", () => json({ detail: sentence, code: "rate_limited", message: sentence }, 429));
    const store = await loadedStore();
    await expect(store.getSnapshot().passwordAuth?.signIn("ada@example.com", "nope")).rejects.toThrow(sentence);

    fetch.on("POST", "/api/auth/sign-in/email", () => new Response("", { status: 429 }));
    await expect(store.getSnapshot().passwordAuth?.signIn("ada@example.com", "nope")).rejects.toThrow(
      "Too many failed sign-in attempts. Please wait a few minutes, then try again.",
    );
  });

  it("rejects with better-auth's sentence when signing in fails", async () => {
    const fetch = installFetchFake();
    betterAuth(fetch, { token: null });
    fetch.on("POST", "/api/auth/sign-in/email", () =>
      json({ code: "INVALID_EMAIL_OR_PASSWORD", message: "Invalid email or password" }, 401),
    );
    const store = await loadedStore();

    await expect(store.getSnapshot().passwordAuth?.signIn("ada@example.com", "nope")).rejects.toThrow(
      "Invalid email or password",
    );
    expect(store.getSnapshot().status).toBe("signedOut");
  });
});

describe("the local session when better-auth is in trouble", () => {
  it("keeps a signed-in user signed in when a reload fails", async () => {
    const fetch = installFetchFake();
    betterAuth(fetch);
    const store = await loadedStore();
    expect(await store.getSnapshot().getToken()).toBe("short-lived-token-A");
    fetch.on("GET", "/api/auth/get-session", () => json({ message: "database unavailable" }, 500));
    fetch.on("GET", "/api/auth/token", () => json({ detail: "database unavailable", code: "internal_error" }, 500));

    await store.load();
    expect(store.getSnapshot().status).toBe("signedIn");
    // A refresh that fails keeps the last token (a 401 would mean signed out).
    expect(await store.getSnapshot().getToken()).toBe("short-lived-token-A");
  });
});
