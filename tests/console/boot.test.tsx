import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter } from "react-router";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { forgetPublicConfig } from "../../src/config/public-config";
import { RootRoutes } from "../../src/root-routes";
import { installFetchFake, json, type FetchFake } from "./fetch-fake";

// Which implementation's code the console loaded.
const loaded = vi.hoisted(() => new Set<string>());
vi.mock("better-auth/react", async (importOriginal) => {
  loaded.add("better-auth");
  return importOriginal();
});
vi.mock("@clerk/react", async (importOriginal) => {
  loaded.add("@clerk/react");
  return importOriginal();
});

const LOCAL_CONFIG = { data: { authMode: "local", voiceMode: "sandbox", clerkPublishableKey: null, vapiPublicKey: null } };
const USER = { id: "u1", name: "Ada Lovelace", email: "ada@example.com", image: null, emailVerified: false };
// get-session answers a browser without the session token (it lives only in the HttpOnly cookie).
const SESSION = { id: "s1", userId: "u1", activeOrganizationId: "org_1" };
const SHORT_LIVED = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.short-lived.signature";
const TOO_MANY = "Too many failed sign-in attempts: try again in 15 minutes.";

/** A better-auth server in miniature: one account, one organisation, a session cookie's worth of state. */
function localAuthServer(fetch: FetchFake, options: { failuresAllowed?: number } = {}) {
  let signedIn = false;
  let failures = 0;
  return fetch
    .on("GET", "/api/config", () => json(LOCAL_CONFIG))
    .on("GET", "/api/auth/get-session", () => json(signedIn ? { session: SESSION, user: USER } : null))
    .on("GET", "/api/auth/token", () =>
      signedIn
        ? json({ data: { token: SHORT_LIVED, expiresAt: "2030-01-01T00:05:00.000Z", userId: USER.id, activeOrganizationId: SESSION.activeOrganizationId } })
        : json({ detail: "Sign in again: your session has ended.", code: "unauthorized" }, 401),
    )
    .on("POST", "/api/auth/sign-in/email", (request) => {
      const { email, password } = request.body as { email: string; password: string };
      if (failures >= (options.failuresAllowed ?? Infinity)) {
        return new Response(JSON.stringify({ detail: TOO_MANY, code: "rate_limited", message: TOO_MANY }), {
          status: 429,
          headers: { "Content-Type": "application/json", "Retry-After": "900" },
        });
      }
      if (email !== USER.email || password !== "correct horse battery") {
        failures += 1;
        return json({ code: "INVALID_EMAIL_OR_PASSWORD", message: "Invalid email or password" }, 401);
      }
      signedIn = true;
      return json({ redirect: false, user: USER });
    })
    .on("GET", "/api/auth/organization/list", () => json([{ id: "org_1", name: "Analytical Engines", slug: "ae" }]))
    .on("GET", "/api/auth/organization/get-active-member-role", (request) =>
      json({ role: request.query.get("organizationId") === "org_1" ? "owner" : "member" }),
    )
    .on("POST", "/api/auth/sign-out", () => {
      signedIn = false;
      return json({ success: true });
    });
}

function renderApp(path = "/") {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <RootRoutes />
    </MemoryRouter>,
  );
}

describe("booting the console in local mode", () => {
  beforeEach(() => forgetPublicConfig());

  it("asks /api/config, loads the local session, and signs in with better-auth", async () => {
    const fetch = localAuthServer(installFetchFake()).on("POST", "/api/organization/org_1/invite", () =>
      json({ status: "success" }),
    );
    const user = userEvent.setup();
    renderApp("/");

    // The first render imports the console's lazy chunks, which takes a moment under vitest.
    await user.type(await screen.findByLabelText("Email", {}, { timeout: 10_000 }), "ada@example.com");
    await user.type(screen.getByLabelText("Password"), "wrong");
    await user.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Invalid email or password");

    await user.clear(screen.getByLabelText("Password"));
    await user.type(screen.getByLabelText("Password"), "correct horse battery");
    await user.click(screen.getByRole("button", { name: "Sign in" }));

    await screen.findByRole("heading", { level: 1, name: "Dashboard" }, { timeout: 5000 });
    expect(screen.getByRole("button", { name: "Switch organization" })).toHaveTextContent("Analytical Engines");
    expect(fetch.to("GET", "/api/config")).toHaveLength(1);
    expect(loaded.has("better-auth")).toBe(true);
    expect(loaded.has("@clerk/react")).toBe(false);

    // The owner may invite; the request carries the short-lived token (from GET /api/auth/token) as the bearer.
    await user.click(screen.getByRole("button", { name: "Switch organization" }));
    await user.click(await screen.findByRole("menuitem", { name: "Invite member" }));
    const dialog = await screen.findByRole("dialog", { name: "Invite member" });
    await user.type(within(dialog).getByLabelText("Email"), "charles@example.com");
    await user.click(within(dialog).getByRole("button", { name: "Send invitation" }));
    await screen.findByText("Invitation sent successfully!");
    const [invite] = fetch.to("POST", "/api/organization/org_1/invite");
    expect(invite?.headers.get("authorization")).toBe(`Bearer ${SHORT_LIVED}`);
    // Requests to our own API carry the token; better-auth's own calls ride on its cookie.
    expect(fetch.requests.filter((request) => request.path.startsWith("/api/auth/")).every((request) => !request.headers.has("authorization"))).toBe(true);

    // Signing out ends the better-auth session and returns to the sign-in screen.
    await user.click(screen.getByRole("button", { name: "Account menu" }));
    await user.click(await screen.findByRole("menuitem", { name: "Sign out" }));
    await screen.findByRole("button", { name: "Sign in" });
    expect(fetch.to("POST", "/api/auth/sign-out")).toHaveLength(1);
  });

  it("shows the throttle's sentence in the sign-in form after too many failed passwords", async () => {
    const fetch = localAuthServer(installFetchFake(), { failuresAllowed: 5 });
    const user = userEvent.setup();
    renderApp("/");

    await user.type(await screen.findByLabelText("Email", {}, { timeout: 10_000 }), "ada@example.com");
    for (let attempt = 1; attempt <= 6; attempt++) {
      await user.clear(screen.getByLabelText("Password"));
      await user.type(screen.getByLabelText("Password"), `wrong-${attempt}`);
      await user.click(screen.getByRole("button", { name: "Sign in" }));
      await waitFor(() => expect(fetch.to("POST", "/api/auth/sign-in/email")).toHaveLength(attempt));
    }
    expect(await screen.findByRole("alert")).toHaveTextContent(TOO_MANY);
    // Still the sign-in form, ready for a later try.
    expect(screen.getByRole("button", { name: "Sign in" })).toBeEnabled();
  });

  it("says when the server cannot be reached, and tries again", async () => {
    let up = false;
    const fetch = installFetchFake()
      .on("GET", "/api/config", () => (up ? json(LOCAL_CONFIG) : new Response("", { status: 502 })))
      .on("GET", "/api/auth/get-session", () => json(null));
    const user = userEvent.setup();
    renderApp("/dashboard");

    await screen.findByText("The console cannot reach the server.", {}, { timeout: 10_000 });
    up = true;
    await user.click(screen.getByRole("button", { name: "Try again" }));

    await screen.findByRole("button", { name: "Sign in" });
    await waitFor(() => expect(fetch.to("GET", "/api/config").length).toBeGreaterThanOrEqual(2));
  });
});
