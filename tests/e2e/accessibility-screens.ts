// The screens the accessibility test (./accessibility.e2e.ts) checks, and the demo data they need.
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { signIn, type demoApi } from "./harness";

export const SIZES = { desktop: { width: 1440, height: 900 }, phone: { width: 390, height: 844 } } as const;

/** Demo data the screens need: made or found through the API once, before the first size. */
export interface Fixture {
  agentId: string;
  publicAgentId: string;
  webCallSlug: string;
  campaignId: string;
  draftId: string;
  orderId: string;
  appointmentId: string;
}

export async function arrange(api: ReturnType<typeof demoApi>): Promise<Fixture> {
  const ok = <T,>(answer: { status: number; body: T }, what: string): T => {
    assert.ok(answer.status >= 200 && answer.status < 300, `${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  const agents = ok(await api<{ data: { id: string }[] }>("GET", "/agent/"), "agents").data;
  const numbers = ok(await api<{ data: { id: string }[] }>("GET", "/phonenumber/"), "numbers").data;
  const publicAgent = ok(await api<{ data: { id: string } }>("POST", "/agent/", { agent_name: "A11y public agent", is_public: true }), "public agent").data;
  const link = ok(
    await api<{ data: { slug: string } }>("POST", "/webcall/", {
      agent_id: publicAgent.id,
      call_title: "Your order follow-up",
      recipient_name: "Grace",
      sub_title: "Two minutes about your delivery.",
      instructions: [{ icon: "headphones", title: "Use headphones", description: "So the assistant does not hear itself." }],
    }),
    "web-call link",
  ).data;
  const campaigns = ok(await api<{ data: { id: string }[] }>("GET", "/campaign/"), "campaigns").data;
  const draft = ok(
    await api<{ data: { id: string } }>("POST", "/campaign/", {
      name: "A11y draft",
      agent_id: agents[0]!.id,
      phone_number_id: numbers[0]!.id,
      schedule: { windows: [{ days: ["mon", "tue", "wed", "thu", "fri"], start: "09:00", end: "17:00" }], fallback_timezone: "Europe/Berlin" },
    }),
    "draft campaign",
  ).data;
  const orders = ok(await api<{ data: { id: string }[] }>("GET", "/order/"), "orders").data;
  const appointments = ok(await api<{ data: { id: string }[] }>("GET", "/appointment/"), "appointments").data;
  return {
    agentId: agents[0]!.id,
    publicAgentId: publicAgent.id,
    webCallSlug: link.slug,
    campaignId: campaigns[0]!.id,
    draftId: draft.id,
    orderId: orders[0]!.id,
    appointmentId: appointments[0]!.id,
  };
}

export interface Screen {
  name: string;
  /** Opens the screen (or drawer, dialog, step) and waits until its content is there. */
  open: (page: Page, base: string, data: Fixture) => Promise<void>;
}

const T = { timeout: 20_000 };

async function shell(page: Page, base: string, path: string, heading: string) {
  await page.goto(`${base}${path}`);
  await page.getByRole("main").getByRole("heading", { level: 1, name: heading, exact: true }).waitFor(T);
  await page.waitForLoadState("networkidle");
}

async function drawer(page: Page) {
  const open = page.locator(".ant-drawer-open .ant-drawer-content");
  await open.last().waitFor(T);
  await page.waitForLoadState("networkidle");
}

async function dialog(page: Page, name?: string) {
  await page.getByRole("dialog", name ? { name } : {}).last().waitFor(T);
  await page.waitForLoadState("networkidle");
}

/**
 * The screens the test holds at no critical or serious violation, in the order visited (the sign-in page
 * first, signed out). A screen moves here from PENDING_SCREENS once axe finds nothing there at both sizes.
 */
export const SCREENS: Screen[] = [
  {
    name: "sign-in",
    open: async (page, base) => {
      await page.goto(`${base}/`);
      await page.getByLabel("Email").waitFor(T);
    },
  },
  {
    name: "public agent page",
    open: async (page, base, data) => {
      await page.goto(`${base}/public/agent/${data.publicAgentId}`);
      await page.getByRole("heading", { level: 1, name: "A11y public agent" }).waitFor(T);
      await page.waitForLoadState("networkidle");
    },
  },
  {
    name: "public agent call dialog",
    open: async (page) => {
      await page.getByRole("button", { name: "Start Call" }).click();
      await dialog(page, "Confirm Call Details");
    },
  },
  {
    name: "web-call page",
    open: async (page, base, data) => {
      await page.goto(`${base}/web-call/${data.webCallSlug}`);
      await page.getByRole("heading", { level: 1, name: "Your order follow-up" }).waitFor(T);
      await page.waitForLoadState("networkidle");
    },
  },
];

/**
 * Screens not yet at zero (issue 31, item 12): every shell screen has the account menu's and organisation
 * switcher's names ("Account menu", "Switch organization") not containing their visible text (the person's
 * and organisation's names, WCAG 2.5.3), and some have more (call links named by id, KPI cards, required
 * selects' aria-required, the phone-width billing tabs' list). Not visited by the test, to keep it short;
 * they open in this order, signed in as the demo from the dashboard on.
 */
export const PENDING_SCREENS: Screen[] = [
  {
    name: "dashboard",
    open: async (page, base) => {
      await signIn(page, base);
      await page.waitForURL(/\/dashboard$/, T);
      await page.getByRole("main").getByRole("heading", { level: 1, name: "Dashboard" }).waitFor(T);
      await page.locator('[data-kpi="calls"]').waitFor(T);
      await page.waitForLoadState("networkidle");
    },
  },
  {
    name: "organisation switcher menu",
    open: async (page) => {
      const rail = page.getByRole("button", { name: "Expand sidebar" });
      if (await rail.isVisible()) await rail.click();
      await page.getByRole("button", { name: "Switch organization" }).click();
      await page.getByRole("menu").waitFor(T);
    },
  },
  {
    name: "invite member dialog",
    open: async (page) => {
      await page.getByRole("menu").getByRole("menuitem", { name: "Invite member" }).click();
      await dialog(page, "Invite member");
    },
  },
  {
    name: "create organization dialog",
    open: async (page) => {
      await page.keyboard.press("Escape");
      await page.getByRole("dialog", { name: "Invite member" }).waitFor({ state: "hidden" });
      await page.getByRole("button", { name: "Switch organization" }).click();
      await page.getByRole("menu").getByRole("menuitem", { name: "Create organization" }).click();
      await dialog(page, "Create organization");
    },
  },
  {
    name: "account menu",
    open: async (page) => {
      await page.keyboard.press("Escape");
      await page.getByRole("dialog", { name: "Create organization" }).waitFor({ state: "hidden" });
      await page.getByRole("button", { name: "Account menu" }).click();
      await page.getByRole("menu").last().waitFor(T);
    },
  },
  { name: "agent editor", open: (page, base, data) => shell(page, base, `/agent/${data.agentId}`, "Edit Agent") },
  {
    name: "call logs",
    open: async (page, base) => {
      await shell(page, base, "/call-logs", "Call Logs");
      await page.getByRole("button", { name: /^Open call / }).first().waitFor(T);
    },
  },
  {
    name: "call drawer",
    open: async (page) => {
      await page.getByRole("button", { name: /^Open call / }).first().click();
      await page.getByRole("dialog").getByRole("region", { name: "Transcript" }).waitFor(T);
      await drawer(page);
    },
  },
  {
    name: "phone numbers",
    open: async (page, base) => {
      await shell(page, base, "/phone-numbers", "Phone Numbers");
      await page.getByRole("row").filter({ hasText: "Main line" }).waitFor(T);
    },
  },
  {
    name: "add phone number dialog",
    open: async (page) => {
      await page.getByRole("button", { name: "Add phone number" }).first().click();
      await dialog(page, "Add phone number");
    },
  },
  { name: "campaigns", open: (page, base) => shell(page, base, "/campaigns", "Campaigns") },
  { name: "campaign wizard: basics", open: (page, base) => shell(page, base, "/campaigns/create", "Create Campaign") },
  ...(["contacts", "schedule", "calling", "review"] as const).map((step) => ({
    name: `campaign wizard: ${step}`,
    open: (page: Page, base: string, data: Fixture) => shell(page, base, `/campaigns/edit/${data.draftId}?step=${step}`, "Edit Campaign"),
  })),
  { name: "campaign page", open: (page, base, data) => shell(page, base, `/campaigns/${data.campaignId}/calls`, "Campaign Calls") },
  { name: "calendar", open: (page, base) => shell(page, base, "/calendar", "Calendar") },
  {
    name: "appointment drawer",
    open: async (page, base, data) => {
      await shell(page, base, `/calendar?appointment=${data.appointmentId}`, "Calendar");
      await drawer(page);
    },
  },
  {
    name: "availability drawer",
    open: async (page, base) => {
      await shell(page, base, "/calendar?availability=organisation", "Calendar");
      await drawer(page);
    },
  },
  ...(["overview", "usage", "transactions", "receipts"] as const).map((tab) => ({
    name: `billing: ${tab}`,
    open: (page: Page, base: string) => shell(page, base, tab === "overview" ? "/billing" : `/billing?tab=${tab}`, "Billing"),
  })),
  { name: "subscriptions", open: (page, base) => shell(page, base, "/subscriptions", "Subscriptions") },
  {
    name: "plan change dialog",
    open: async (page) => {
      await page.getByRole("button", { name: /^(Upgrade|Downgrade)/ }).first().click();
      await dialog(page);
    },
  },
  { name: "orders", open: (page, base) => shell(page, base, "/orders", "Orders") },
  {
    name: "order drawer",
    open: async (page, base, data) => {
      await shell(page, base, `/orders?order=${data.orderId}`, "Orders");
      await drawer(page);
    },
  },
  {
    name: "store integrations drawer",
    open: async (page, base) => {
      await shell(page, base, "/orders", "Orders");
      await page.getByRole("button", { name: "Store integrations" }).click();
      await drawer(page);
    },
  },
  { name: "calendar permission", open: (page, base) => shell(page, base, "/calendar-permission", "Calendar Permission") },
];

