// HTML and script in every user-editable text are shown as text, never run or parsed, on the console
// screens and the public pages that show them (issue 6, security suite). The texts are created through
// the API; each page must show the literal text, leave window.__xss undefined, hold no element or
// event-handler attribute the text would have made, and report no CSP violation (CSP would block an
// inline handler, so a clean window.__xss alone would prove nothing: the DOM check is the real one).
//
// Run: node --import tsx --test tests/e2e/xss.e2e.ts
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { demoApi, inPage, productForThisFile, signIn } from "./harness";

const e2e = productForThisFile();

const IMG = `<img src=x onerror="window.__xss=1">`;
const SCRIPT = `<script>window.__xss=1</script>`;
const SVG = `"><svg onload=window.__xss=1>`;

// node:test may run the harness's root `before` after this file's own: the API signs in on first use.
const demo = demoApi(() => e2e.product.baseURL);

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const answer = await demo<{ data: T }>(method, path, body);
  assert.ok(answer.status < 300, `${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.data;
}

/** Everything hostile, created once through the API (lazily: the product starts in the harness's `before`). */
interface Hostile {
  agentId: string;
  agentName: string;
  description: string;
  greeting: string;
  phoneName: string;
  slug: string;
  callTitle: string;
  recipient: string;
  subTitle: string;
  instructionTitle: string;
  instructionText: string;
  customerName: string;
}
let hostile: Promise<Hostile> | undefined;

async function createHostile(): Promise<Hostile> {
  const agentName = `Agent ${IMG}`;
  const description = `About ${SCRIPT} ${IMG}`;
  const greeting = `Hello ${SVG}`;
  const agent = await api<{ id: string }>("POST", "/agent/", { agent_name: agentName, description, agent_welcome_message: greeting, is_public: true });
  const phoneName = `<img src=x onerror=window.__xss=1>`;
  const phone = await api<{ id: string }>("POST", "/phonenumber/", { name: phoneName, number: "+14155550177", provider: "byo", agent_id: agent.id });
  const callTitle = `Call ${IMG}`;
  const recipient = SCRIPT;
  const subTitle = `Sub ${SVG} ${SCRIPT}`;
  const instructionTitle = `Step ${IMG}`;
  const instructionText = `Then ${SCRIPT}`;
  const link = await api<{ slug: string }>("POST", "/webcall/", {
    agent_id: agent.id,
    call_title: callTitle,
    recipient_name: recipient,
    sub_title: subTitle,
    instructions: [{ icon: "info", title: instructionTitle, description: instructionText }],
  });
  const customerName = "<img src=x onerror=window.__xss=1>";
  await api("POST", "/call/", { agent_id: agent.id, phone_number_id: phone.id, customer_number: "+14155550100", customer_name: customerName });
  return { agentId: agent.id, agentName, description, greeting, phoneName, slug: link.slug, callTitle, recipient, subTitle, instructionTitle, instructionText, customerName };
}

/** Records what a successful injection would leave behind, before any page script runs. */
async function watch(page: Page) {
  await page.addInitScript(() => {
    const w = window as unknown as { __cspViolations: string[] };
    w.__cspViolations = [];
    document.addEventListener("securitypolicyviolation", (event) => {
      // Only what could be an injection: inline code or a handler (an `eval` some library tries is another matter).
      if (event.blockedURI === "inline" || event.sample.includes("__xss") || event.violatedDirective.startsWith("script-src-attr")) {
        w.__cspViolations.push(`${event.violatedDirective} ${event.blockedURI} ${event.sample}`);
      }
    });
  });
  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  return dialogs;
}

/** Waits until the page shows `literal` as text (or holds it as a form field's value). */
async function showsLiteral(page: Page, literal: string, where: string) {
  await page
    .waitForFunction(
      (text) =>
        document.body.innerText.includes(text) ||
        [...document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>("input, textarea")].some((field) => field.value.includes(text)),
      literal,
      { timeout: 20_000 },
    )
    .catch(() => {
      throw new Error(`${where}: the literal text ${JSON.stringify(literal)} is not shown`);
    });
}

/** Nothing the hostile texts could have made exists in the DOM, nothing ran, CSP blocked nothing. */
async function assertInert(page: Page, where: string, dialogs: string[]) {
  const found = await page.evaluate(() => {
    const hits: string[] = [];
    for (const element of document.querySelectorAll("*")) {
      for (const attribute of element.getAttributeNames()) {
        const value = element.getAttribute(attribute) ?? "";
        if (attribute.startsWith("on") && value.includes("__xss")) hits.push(`<${element.tagName.toLowerCase()} ${attribute}>`);
      }
      if (element.tagName === "SCRIPT" && (element.textContent ?? "").includes("__xss")) hits.push("<script>…__xss…</script>");
      if (element.tagName === "IMG" && element.getAttribute("src") === "x") hits.push('<img src="x">');
      if (element.tagName.toLowerCase() === "svg" && element.hasAttribute("onload")) hits.push("<svg onload>");
    }
    const w = window as unknown as { __xss?: unknown; __cspViolations?: string[] };
    return { hits, xss: w.__xss, csp: w.__cspViolations ?? [] };
  });
  assert.deepEqual(found.hits, [], `${where}: injected elements in the DOM`);
  assert.equal(found.xss, undefined, `${where}: window.__xss was set`);
  assert.deepEqual(found.csp, [], `${where}: CSP violations (something tried to run)`);
  assert.deepEqual(dialogs, [], `${where}: a dialog opened`);
}

/** Hovers every element showing one of the texts, so tooltips built from them render too, then checks again. */
async function hoverAll(page: Page, texts: string[]) {
  for (const text of texts) {
    const matches = page.getByText(text, { exact: false });
    const count = Math.min(await matches.count(), 5);
    for (let index = 0; index < count; index++) {
      await matches.nth(index).hover({ timeout: 2_000 }).catch(() => undefined);
      await page.waitForTimeout(300);
    }
  }
}

test("console screens show hostile agent, phone-number and call texts as text", async () => {
  const h = await (hostile ??= createHostile());
  await inPage(e2e.browser, "xss console", async (page) => {
    const dialogs = await watch(page);
    await signIn(page, e2e.product.baseURL);
    await page.waitForURL(/\/dashboard$/, { timeout: 20_000 });
    await assertInert(page, "dashboard", dialogs);

    await page.goto(`${e2e.product.baseURL}/agent/${h.agentId}`);
    await page.getByLabel("Agent name", { exact: true }).waitFor({ timeout: 20_000 });
    assert.equal(await page.getByLabel("Agent name", { exact: true }).inputValue(), h.agentName);
    await showsLiteral(page, h.description, "agent editor");
    await showsLiteral(page, h.greeting, "agent editor");
    // The agent picker and anything else listing agents by name.
    await page.locator(".ant-select").first().click().catch(() => undefined);
    await page.waitForTimeout(500);
    await page.keyboard.press("Escape");
    await hoverAll(page, ["Agent <img"]);
    await assertInert(page, "agent editor", dialogs);

    await page.goto(`${e2e.product.baseURL}/phone-numbers`);
    await showsLiteral(page, h.phoneName, "phone numbers");
    await hoverAll(page, [h.phoneName, "Agent <img"]);
    await assertInert(page, "phone numbers", dialogs);

    await page.goto(`${e2e.product.baseURL}/call-logs`);
    await showsLiteral(page, h.customerName, "call logs");
    await hoverAll(page, [h.customerName, "Agent <img"]);
    await assertInert(page, "call logs", dialogs);
    // The call's detail view, where the names appear again.
    await page.getByText(h.customerName).first().click();
    await page.waitForTimeout(1_000);
    await assertInert(page, "call log detail", dialogs);
  });
});

test("the shared private-agent page shows a hostile agent's texts as text", async () => {
  const h = await (hostile ??= createHostile());
  await inPage(e2e.browser, "xss private agent", async (page) => {
    const dialogs = await watch(page);
    await page.goto(`${e2e.product.baseURL}/agent/private/${h.agentId}`);
    await page.waitForLoadState("networkidle");
    await assertInert(page, "private agent page (signed out)", dialogs);
    await signIn(page, e2e.product.baseURL);
    await page.waitForURL(/\/dashboard$/, { timeout: 20_000 });
    await page.goto(`${e2e.product.baseURL}/agent/private/${h.agentId}`);
    await page.waitForLoadState("networkidle");
    await page.waitForTimeout(1_000);
    await assertInert(page, "private agent page (signed in)", dialogs);
  });
});

test("the public agent page shows a hostile name, description and greeting as text", async () => {
  const h = await (hostile ??= createHostile());
  await inPage(e2e.browser, "xss public agent", async (page) => {
    const dialogs = await watch(page);
    await page.goto(`${e2e.product.baseURL}/public/agent/${h.agentId}`);
    await page.getByRole("heading", { level: 1, name: h.agentName }).waitFor({ timeout: 20_000 });
    await showsLiteral(page, h.description, "public agent page");
    await assertInert(page, "public agent page", dialogs);
  });
});

test("the web-call page shows a hostile title, recipient, subtitle and instructions as text", async () => {
  const h = await (hostile ??= createHostile());
  await inPage(e2e.browser, "xss web call", async (page) => {
    const dialogs = await watch(page);
    await page.goto(`${e2e.product.baseURL}/web-call/${h.slug}`);
    await page.getByRole("heading", { level: 1, name: h.callTitle }).waitFor({ timeout: 20_000 });
    for (const literal of [h.recipient, h.subTitle, h.instructionTitle, h.instructionText]) await showsLiteral(page, literal, "web-call page");
    await hoverAll(page, [h.instructionTitle, h.recipient]);
    await assertInert(page, "web-call page", dialogs);
  });
});
