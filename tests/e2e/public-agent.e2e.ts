// The public pages end to end, in sandbox mode: a public agent phones a visitor (through to the finished
// call record), and a web-call link plays a sandbox call in the browser.
import assert from "node:assert/strict";
import { test } from "node:test";
import { demoApi, inPage, productForThisFile } from "./harness";

const e2e = productForThisFile({ SANDBOX_CALL_SECONDS: "2" });
// The demo's API, signed in on first use (after the harness has started the product).
const api = demoApi(() => e2e.product.baseURL);

async function createPublicAgent(name: string): Promise<string> {
  const created = await api<{ data: { id: string } }>("POST", "/agent/", { agent_name: name, is_public: true });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body.data.id;
}

test("a visitor asks a public agent to call them: 'Agent is Calling', and the sandbox call ends with a transcript and a cost", async () => {
  const agentId = await createPublicAgent("E2E public agent");
  const number = await api<{ data: { id: string } }>("POST", "/phonenumber/", {
    name: "E2E caller ID",
    number: "+14155550142",
    provider: "byo",
  });
  assert.equal(number.status, 201, JSON.stringify(number.body));
  const numberId = number.body.data.id;

  await inPage(e2e.browser, "public agent call", async (page) => {
    await page.goto(`${e2e.product.baseURL}/public/agent/${agentId}?pid=${numberId}`);
    await page.getByRole("heading", { level: 1, name: "E2E public agent" }).waitFor({ timeout: 20_000 });
    await page.getByRole("button", { name: "Start Call" }).click();

    const dialog = page.getByRole("dialog", { name: "Confirm Call Details" });
    await dialog.waitFor();
    const submit = dialog.getByRole("button", { name: "Start Call" });
    assert.equal(await submit.isDisabled(), true, "Start Call waits for a name and a phone");
    await dialog.getByLabel("Recipient Name").fill("Ada Lovelace");
    // The sandbox answers a number ending in 00 (01 busy, 02 no answer, 03 voicemail; others are drawn per call).
    await dialog.getByLabel("Phone Number").pressSequentially("4155550100");
    assert.equal(await dialog.getByLabel("Phone Number").inputValue(), "+1 (415) 555-0100");
    // The flag comes from our own /flags, not a CDN. On a busy machine the image may still be on its way
    // when the number is typed, so wait for it to finish (load or error) before asking whether it loaded.
    const flag = await dialog.getByRole("button", { name: "Country: United States (+1)" }).locator("img").evaluate(async (img: HTMLImageElement) => {
      if (!img.complete) {
        await new Promise<void>((resolve) => {
          img.addEventListener("load", () => resolve(), { once: true });
          img.addEventListener("error", () => resolve(), { once: true });
          setTimeout(resolve, 15_000);
        });
      }
      return { src: img.getAttribute("src"), loaded: img.complete && img.naturalWidth > 0 };
    });
    assert.deepEqual(flag, { src: "/flags/us.svg", loaded: true });

    const answered = page.waitForResponse((response) => response.url().endsWith("/api/call/public") && response.request().method() === "POST");
    await submit.click();
    const response = await answered;
    assert.deepEqual(response.request().postDataJSON(), {
      assistantId: agentId,
      assistantOverrides: { variableValues: { name: "Ada Lovelace" } },
      customer: { number: "+14155550100" },
      phoneNumberId: numberId,
    });
    assert.equal(response.status(), 201, await response.text());
    const callId = ((await response.json()) as { data: { id: string } }).data.id;

    await page.getByText("Agent is Calling").waitFor();
    await dialog.waitFor({ state: "detached" });

    // The sandbox plays the call (SANDBOX_CALL_SECONDS=2) and reports it through the webhook route.
    type CallRecord = { status: string; transcript: string | null; cost: number | null; customer_number: string | null; customer_name: string | null };
    let call: CallRecord | null = null;
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const current: { status: number; body: { data: CallRecord } } = await api<{ data: CallRecord }>("GET", `/call/${callId}`);
      assert.equal(current.status, 200);
      const record = current.body.data;
      call = record;
      if (record.status === "ended" && record.transcript && record.cost !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    assert.equal(call?.status, "ended");
    assert.ok(call?.transcript, "the ended call has a transcript");
    assert.equal(typeof call?.cost, "number");
    assert.equal(call?.customer_number, "+14155550100");
    assert.equal(call?.customer_name, "Ada Lovelace");
  });
});

test("a public agent page for an unknown agent still offers the call, with the local defaults", async () => {
  await inPage(e2e.browser, "public agent defaults", async (page) => {
    const id = "00000000-0000-4000-8000-000000000000";
    await page.goto(`${e2e.product.baseURL}/public/agent/${id}`);
    await page.getByRole("heading", { level: 1, name: "AI Agent 00000000" }).waitFor({ timeout: 20_000 });
    await page.getByText("Connect with our AI assistant").waitFor();
  });
});

test("a web-call link plays a sandbox call: overlay labelled Sandbox, the agent's welcome message, End Call ends it, and the call is in the call log", async () => {
  const created = await api<{ data: { id: string } }>("POST", "/agent/", {
    agent_name: "E2E web agent",
    agent_welcome_message: "Hi {{name}}, this is your order assistant.",
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const agentId = created.body.data.id;
  const link = await api<{ data: { slug: string; url: string } }>("POST", "/webcall/", {
    agent_id: agentId,
    call_title: "Your order follow-up",
    recipient_name: "Grace",
    sub_title: "Two minutes about your delivery.",
    instructions: [
      { icon: "headphones", title: "Use headphones", description: "So the assistant does not hear itself." },
      { icon: "microphone", title: "<b>Allow</b> the microphone", description: "<img src=x onerror=alert(1)>" },
    ],
  });
  assert.equal(link.status, 201, JSON.stringify(link.body));

  await inPage(e2e.browser, "web call sandbox", async (page) => {
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(`${e2e.product.baseURL}/web-call/${link.body.data.slug}`);
    await page.getByRole("heading", { level: 1, name: "Your order follow-up" }).waitFor({ timeout: 20_000 });
    await page.getByText("Hi Grace").waitFor();
    await page.getByText("<b>Allow</b> the microphone").waitFor();
    await page.getByText("<img src=x onerror=alert(1)>").waitFor();
    assert.ok(await page.getByRole("link", { name: "Get help" }).isVisible());

    const started = page.waitForResponse((response) => response.url().endsWith("/call") && response.request().method() === "POST");
    await page.getByRole("button", { name: "Start Call" }).click();
    const startAnswer = await started;
    assert.equal(startAnswer.status(), 201, await startAnswer.text());
    const callId = ((await startAnswer.json()) as { data: { id: string } }).data.id;
    const overlay = page.getByRole("dialog", { name: "Your order follow-up" });
    await overlay.waitFor({ timeout: 10_000 });
    await overlay.getByText("Sandbox", { exact: true }).waitFor();
    await overlay.getByRole("status").filter({ hasText: "Assistant is speaking" }).waitFor({ timeout: 10_000 });
    assert.equal(await overlay.locator(".pub-volume__segment").count(), 10);
    assert.ok((await overlay.locator(".pub-volume__segment--lit").count()) > 0, "the volume bar moves while the assistant speaks");
    // The agent's own welcome message, with the link's recipient.
    await overlay.getByText("Hi Grace, this is your order assistant.").waitFor({ timeout: 10_000 });

    const ended = page.waitForResponse((response) => response.url().endsWith(`/call/${callId}/end`));
    await overlay.getByRole("button", { name: "End Call" }).click();
    await overlay.waitFor({ state: "detached" });
    await page.getByText("The call has ended.").waitFor();
    assert.equal((await ended).status(), 200);
    assert.deepEqual(dialogs, [], "nothing from the link's text ran");

    // The web call is a call record of the organisation, with its transcript, summary and cost.
    const record = await api<{ data: { type: string; status: string; transcript: string | null; summary: string | null; cost: number | null; is_sandbox: boolean } }>(
      "GET",
      `/call/${callId}`,
    );
    assert.equal(record.status, 200, JSON.stringify(record.body));
    assert.equal(record.body.data.type, "web");
    assert.equal(record.body.data.status, "ended");
    assert.equal(record.body.data.is_sandbox, true);
    assert.match(record.body.data.transcript ?? "", /^AI: Hi Grace, this is your order assistant\./);
    assert.ok(record.body.data.summary, "the web call has a summary");
    assert.equal(typeof record.body.data.cost, "number");
  });
});

test("the calls the demo seeds as running end like any sandbox call", async () => {
  type Row = { id: string; status: string; transcript: string | null; cost: number | null };
  let rows: Row[] = [];
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    // Newest first: the three seeded as running are the most recent calls of the demo.
    const list = await api<{ data: Row[] }>("GET", "/call/?page=1&limit=20");
    assert.equal(list.status, 200);
    rows = list.body.data;
    if (rows.every((row) => row.status === "ended")) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  assert.deepEqual(rows.filter((row) => row.status !== "ended").map((row) => row.id), [], "no call stays in progress");
});

test("an unknown web-call link says so", async () => {
  await inPage(e2e.browser, "web call not found", async (page) => {
    await page.goto(`${e2e.product.baseURL}/web-call/no-such-link`);
    await page.getByRole("heading", { level: 1, name: "This call link is not valid" }).waitFor({ timeout: 20_000 });
  });
});
