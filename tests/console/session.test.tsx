import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { ACME, ADA, FakeSession, findScreen, GLOBEX, renderConsole, waitForPath } from "./test-utils";

describe("where the console sends a signed-in user", () => {
  it("goes from / to /dashboard", async () => {
    const { pathname } = renderConsole({ path: "/" });
    await findScreen("Dashboard");
    expect(pathname()).toBe("/dashboard");
  });

  it("sends an unknown path to /dashboard", async () => {
    const { pathname } = renderConsole({ path: "/no/such/screen" });
    await findScreen("Dashboard");
    expect(pathname()).toBe("/dashboard");
  });
});

describe("signed out", () => {
  it("shows a loader while the session loads, then the sign-in screen", async () => {
    const session = new FakeSession({ status: "loading", user: null, organizations: [], activeOrganizationId: null });
    renderConsole({ path: "/billing", session });
    expect(screen.getByRole("status")).toHaveTextContent("Loading");

    session.update({ status: "signedOut" });

    await screen.findByLabelText("Email");
    expect(screen.getByLabelText("Password")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Sign in" })).toBeInTheDocument();
    expect(screen.queryByRole("navigation", { name: "Main navigation" })).not.toBeInTheDocument();
  });

  it("signs in at / and lands on the dashboard", async () => {
    const session = new FakeSession({ status: "signedOut", user: null });
    session.accounts.set("ada@example.com", { password: "correct horse", name: "Ada Lovelace" });
    const { user, pathname } = renderConsole({ path: "/", session });

    await user.type(await screen.findByLabelText("Email"), "ada@example.com");
    await user.type(screen.getByLabelText("Password"), "correct horse");
    await user.click(screen.getByRole("button", { name: "Sign in" }));

    await findScreen("Dashboard");
    expect(pathname()).toBe("/dashboard");
  });

  it("shows the server's sentence when sign-in fails", async () => {
    const session = new FakeSession({ status: "signedOut", user: null });
    const { user } = renderConsole({ path: "/", session });

    await user.type(await screen.findByLabelText("Email"), "ada@example.com");
    await user.type(screen.getByLabelText("Password"), "wrong");
    await user.click(screen.getByRole("button", { name: "Sign in" }));

    expect(await screen.findByRole("alert")).toHaveTextContent("Invalid email or password");
    expect(screen.getByLabelText("Email")).toBeInTheDocument();
  });

  it("creates an account, then asks for the first organisation", async () => {
    const session = new FakeSession({ status: "signedOut", user: null, organizations: [], activeOrganizationId: null });
    const { user, pathname } = renderConsole({ path: "/", session });

    await user.click(await screen.findByRole("button", { name: "Create an account" }));
    await user.type(screen.getByLabelText("Name"), "Grace Hopper");
    await user.type(screen.getByLabelText("Email"), "grace@example.com");
    await user.type(screen.getByLabelText("Password"), "a long password");
    await user.click(screen.getByRole("button", { name: "Create account" }));

    await screen.findByRole("heading", { name: "Create your organization" });
    await user.type(screen.getByLabelText("Name"), "Navy Labs");
    await user.click(screen.getByRole("button", { name: "Create organization" }));

    await findScreen("Dashboard");
    expect(pathname()).toBe("/dashboard");
    expect(screen.getByRole("button", { name: "Switch organization" })).toHaveTextContent("Navy Labs");
  });
});

describe("organisations", () => {
  it("makes the first membership active when none is", async () => {
    const session = new FakeSession({ organizations: [GLOBEX, ACME], activeOrganizationId: null });
    renderConsole({ session });

    await findScreen("Dashboard");
    expect(session.setActive).toHaveBeenCalledTimes(1);
    expect(session.setActive).toHaveBeenCalledWith(GLOBEX.id);
    expect(screen.getByRole("button", { name: "Switch organization" })).toHaveTextContent("Globex");
  });

  it("lists the organisations with the active one checked, and switches to /dashboard when expanded", async () => {
    const session = new FakeSession();
    const { user, pathname } = renderConsole({ path: "/billing", session });
    await findScreen("Billing");

    await user.click(screen.getByRole("button", { name: "Switch organization" }));
    const acme = await screen.findByRole("menuitem", { name: /Acme Calls/ });
    expect(within(acme).getByRole("img", { name: "Active organization" })).toBeInTheDocument();
    const globex = screen.getByRole("menuitem", { name: /Globex/ });
    expect(within(globex).queryByRole("img", { name: "Active organization" })).not.toBeInTheDocument();

    await user.click(globex);

    await waitFor(() => expect(session.setActive).toHaveBeenCalledWith(GLOBEX.id));
    await waitForPath(pathname, "/dashboard");
    expect(screen.getByRole("button", { name: "Switch organization" })).toHaveTextContent("Globex");
  });

  it("stays on the current path after switching while collapsed", async () => {
    const session = new FakeSession();
    const { user, pathname } = renderConsole({ path: "/billing", session });
    await findScreen("Billing");
    await user.click(screen.getByRole("button", { name: "Collapse sidebar" }));

    await user.click(screen.getByRole("button", { name: "Switch organization" }));
    await user.click(await screen.findByRole("menuitem", { name: /Globex/ }));

    await waitFor(() => expect(session.getSnapshot().activeOrganizationId).toBe(GLOBEX.id));
    expect(pathname()).toBe("/billing");
    expect(screen.getByRole("heading", { level: 1, name: "Billing" })).toBeInTheDocument();
  });

  it("creates an organisation from the switcher's dialog", async () => {
    const session = new FakeSession();
    const { user, pathname } = renderConsole({ path: "/subscriptions", session });
    await findScreen("Subscriptions");

    await user.click(screen.getByRole("button", { name: "Switch organization" }));
    await user.click(await screen.findByRole("menuitem", { name: "Create organization" }));
    const dialog = await screen.findByRole("dialog", { name: "Create organization" });
    await user.type(within(dialog).getByLabelText("Name"), "Initech");
    await user.click(within(dialog).getByRole("button", { name: "Create organization" }));

    await waitForPath(pathname, "/dashboard");
    expect(screen.getByRole("button", { name: "Switch organization" })).toHaveTextContent("Initech");
  });

  it("leaves an organisation after confirming, and the next one becomes active", async () => {
    const session = new FakeSession();
    const { user } = renderConsole({ session });
    await findScreen("Dashboard");

    await user.click(screen.getByRole("button", { name: "Switch organization" }));
    await user.click(await screen.findByRole("menuitem", { name: "Leave organization" }));
    const confirm = await screen.findByRole("dialog");
    expect(confirm).toHaveTextContent("Leave this organization?");
    expect(confirm).toHaveTextContent("You will lose access to Acme Calls");
    await user.click(within(confirm).getByRole("button", { name: "Leave" }));

    await waitFor(() =>
      expect(screen.getByRole("button", { name: "Switch organization" })).toHaveTextContent("Globex"),
    );
    expect(session.getSnapshot().organizations.map((org) => org.id)).toEqual([GLOBEX.id]);
    expect(session.setActive).toHaveBeenCalledWith(GLOBEX.id);
  });
});

describe("leaving as the only admin", () => {
  it("is not offered: 'Leave organization' is disabled and says why on hover; clicking it does nothing", async () => {
    const session = new FakeSession({ organizations: [{ ...ACME, onlyAdmin: true }, GLOBEX] });
    const { user } = renderConsole({ session });
    await findScreen("Dashboard");

    await user.click(screen.getByRole("button", { name: "Switch organization" }));
    const item = await screen.findByRole("menuitem", { name: "Leave organization" });
    expect(item).toHaveAttribute("aria-disabled", "true");
    await user.hover(within(item).getByText("Leave organization"));
    expect(await screen.findByRole("tooltip")).toHaveTextContent(
      "You are the only admin of Acme Calls. Invite another admin before you leave it.",
    );
    await user.click(item);
    expect(screen.queryByText("Leave this organization?")).toBeNull();
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(session.getSnapshot().organizations.map((org) => org.id)).toEqual([ACME.id, GLOBEX.id]);
  });

  it("is offered in an organisation where the user is not the only admin", async () => {
    const session = new FakeSession({ organizations: [{ ...ACME, onlyAdmin: true }, GLOBEX], activeOrganizationId: GLOBEX.id });
    const { user } = renderConsole({ session });
    await findScreen("Dashboard");
    await user.click(screen.getByRole("button", { name: "Switch organization" }));
    expect(await screen.findByRole("menuitem", { name: "Leave organization" })).not.toHaveAttribute("aria-disabled", "true");
  });
});

describe("signing out", () => {
  it("returns to / and shows the sign-in screen", async () => {
    const { user, pathname, session } = renderConsole({ path: "/billing" });
    await findScreen("Billing");

    await user.click(screen.getByRole("button", { name: "Account menu" }));
    await screen.findByText(ADA.email);
    await user.click(screen.getByRole("menuitem", { name: "Sign out" }));

    await waitForPath(pathname, "/");
    expect(session.signOut).toHaveBeenCalledTimes(1);
    await screen.findByRole("button", { name: "Sign in" });
  });
});

describe("a shared private agent link", () => {
  it("asks a signed-out visitor to log in, and Go to Login shows the sign-in screen", async () => {
    const session = new FakeSession({ status: "signedOut", user: null });
    const { user, pathname } = renderConsole({ path: "/agent/private/ag_1", session });

    await screen.findByText("Login is required to access this agent");
    await user.click(screen.getByRole("button", { name: "Go to Login" }));

    await screen.findByLabelText("Email");
    expect(pathname()).toBe("/agent/private/ag_1");
  });
});
