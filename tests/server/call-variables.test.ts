/**
 * What a call says is rendered as Vapi renders it (LiquidJS, server/voice/variables.ts): the sandbox's
 * transcripts of campaign calls and the public web-call page's first message show
 * `Hi {{ name | default: "there" }}!` as "Hi Ada!" or "Hi there!", never the template; filters and Vapi's
 * default variables work; a template Liquid cannot render is shown as written; no file is ever read.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Call, WebCallLink } from "../../contract";
import type { Database } from "../../server/db/client";
import { calls } from "../../server/db/schema";
import { templateConfig } from "../../server/agents/templates";
import { renderVariables } from "../../server/voice/variables";
import { createAgent, getCall } from "./calls-fixtures";
import { addContacts, allSettled, callsOf, campaignWorld, createCampaign, diallerFor, tickUntil, type CampaignWorld } from "./dialler-fixtures";
import { bearer, buildTestApp, migratedDatabase } from "./helpers";

/** The purchase-completion template's welcome message, as members get it. */
const PURCHASE_WELCOME = templateConfig("purchase-completion").agent_welcome_message;
const MONDAY_AFTERNOON = Date.UTC(2024, 0, 1, 15, 45);

describe("renderVariables: Liquid as Vapi has it", () => {
  it("fills `default` from the call's variables: the name when given, the default when missing or empty", () => {
    const template = 'Hi {{ name | default: "there" }}! This is {{ store_name | default: "the store" }}.';
    expect(renderVariables(template, { name: "Ada", store_name: "Mug Shop" })).toBe("Hi Ada! This is Mug Shop.");
    expect(renderVariables(template, {})).toBe("Hi there! This is the store.");
    expect(renderVariables(template, { name: "" })).toBe("Hi there! This is the store.");
  });

  it("filters work: upcase, capitalize, date in a zone; an unknown variable renders empty, an unknown filter is skipped", () => {
    const call = { now: MONDAY_AFTERNOON };
    expect(renderVariables("{{ name | upcase }}, {{ city | capitalize }}", { name: "ada", city: "london" }, call)).toBe("ADA, London");
    expect(renderVariables('{{ "now" | date: "%A, %B %d, %Y, %I:%M %p", "America/Los_Angeles" }}', {}, call)).toBe("Monday, January 01, 2024, 07:45 AM");
    expect(renderVariables('{{ "now" | date: "%H:%M" }} UTC', {}, call)).toBe("15:45 UTC");
    expect(renderVariables('{{ appointment | date: "%b %d" }}', { appointment: "2024-03-05T10:00:00Z" }, call)).toBe("Mar 05");
    expect(renderVariables("[{{ nobody }}] [{{ name | no_such_filter }}]", { name: "Ada" }, call)).toBe("[] [Ada]");
  });

  it("Vapi's default variables: now, date, time, month, day, year in UTC, the customer and the phone number; the call's own variable wins", () => {
    const call = { now: MONDAY_AFTERNOON, customer: { number: "+14155550100", name: "Ada" }, phoneNumber: { number: "+14155550999" } };
    expect(renderVariables("{{ now }} | {{ date }} | {{ time }} | {{ month }} {{ day }}, {{ year }}", {}, call)).toBe("Jan 1, 2024 3:45 PM | Jan 1, 2024 | 3:45 PM | January 1, 2024");
    expect(renderVariables("{{ customer.number }} {{ customer.name }} from {{ phoneNumber.number }}", {}, call)).toBe("+14155550100 Ada from +14155550999");
    expect(renderVariables('{{ now | date: "%Y-%m-%d %H:%M" }}', {}, call)).toBe("2024-01-01 15:45");
    expect(renderVariables("{{ date }}", { date: "next Tuesday" }, call)).toBe("next Tuesday");
  });

  it("a malformed template is shown as written, never an error", () => {
    for (const template of ["Hi {{ name", 'Hi {{ name | default: "there" }!', "{% if name %}open", "{% if %}yes{% endif %}", "{% unknown_tag %}", "{% for x in %}", "{{ name }} {% endif %}"]) {
      expect(renderVariables(template, { name: "Ada" })).toBe(template);
    }
  });

  it("reads no file: include, render and layout are refused and the text is shown as written", () => {
    const folder = mkdtempSync(join(tmpdir(), "liquid-fs-"));
    try {
      const secret = join(folder, "secret.liquid");
      writeFileSync(secret, "TOP SECRET");
      for (const template of [`{% include "${secret}" %}`, `{% render "${secret}" %}`, `{% layout "${secret}" %}x`, '{% include "package.json" %}', "{% include name %}"]) {
        const rendered = renderVariables(template, { name: secret });
        expect(rendered).toBe(template);
        expect(rendered).not.toContain("TOP SECRET");
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("is bounded: a runaway loop or a huge string stops at the limit, shown as written; the same template is not rendered again", () => {
    const loop = "{% for i in (1..1000) %}{% for j in (1..1000) %}{% for k in (1..1000) %}x{% endfor %}{% endfor %}{% endfor %}";
    let started = performance.now();
    expect(renderVariables(loop, {})).toBe(loop);
    expect(performance.now() - started).toBeLessThan(5_000);
    started = performance.now();
    expect(renderVariables(loop, {})).toBe(loop);
    expect(performance.now() - started).toBeLessThan(50);
    const doubling = '{% assign a = "xxxxxxxxxx" %}{% for i in (1..40) %}{% assign a = a | append: a %}{% endfor %}{{ a }}';
    expect(renderVariables(doubling, {})).toBe(doubling);
  });

  it("sees only the values given: no prototype properties", () => {
    expect(renderVariables("[{{ name.constructor }}][{{ name.__proto__ }}][{{ toString }}]", { name: "Ada" })).toBe("[][][]");
  });
});

let database: Database;
let app: FastifyInstance;
let world: CampaignWorld;

beforeAll(async () => {
  database = await migratedDatabase();
  ({ app } = await buildTestApp(database, { SANDBOX_CALL_SECONDS: "0.05", STARTING_CREDIT_USD: "100", DIALLER_INTERVAL_MS: "20" }));
  world = await campaignWorld(app, database.db, "Liquid Shop");
});
afterAll(async () => {
  await app.close();
  await database.close();
});

describe("a campaign call's sandbox transcript", () => {
  it('says the purchase-completion welcome with the contact\'s name, "there" for a contact without one, and the store from the CSV', async () => {
    const agent = await createAgent(app, world.org.token, { agent_name: "Cart Caller", agent_welcome_message: PURCHASE_WELCOME, agent_end_call_message: "Bye {{ name | default: \"for now\" | upcase }}." });
    const campaignId = await createCampaign(world, { agentId: agent.id, maxConcurrency: 2 });
    const [named, nameless] = await addContacts(world, campaignId, [
      { number: "+14155557700", name: "Ada", variables: { store_name: "Mug Shop" } },
      { number: "+14155557800", name: null, variables: {} },
    ]);
    const dialler = diallerFor(app);
    await tickUntil(dialler, async () => (await allSettled(database.db, campaignId)) && (await callsOf(database.db, campaignId)).every((call) => call.transcript != null));

    const transcriptOf = async (contactId: string) => {
      const row = (await callsOf(database.db, campaignId)).find((call) => call.campaignContactId === contactId)!;
      return ((await getCall(app, world.org.token, row.id)).json().data as Call).transcript!;
    };
    const adaTranscript = await transcriptOf(named!);
    expect(adaTranscript.split("\n")[0]).toBe("AI: Hi Ada! This is an automated assistant calling on behalf of Mug Shop about the items you left in your cart. Do you have a minute?");
    expect(adaTranscript.split("\n").at(-1)).toBe("AI: Bye ADA.");
    const namelessTranscript = await transcriptOf(nameless!);
    expect(namelessTranscript.split("\n")[0]).toBe("AI: Hi there! This is an automated assistant calling on behalf of the store about the items you left in your cart. Do you have a minute?");
    expect(namelessTranscript.split("\n").at(-1)).toBe("AI: Bye FOR NOW.");
    for (const transcript of [adaTranscript, namelessTranscript]) expect(transcript).not.toMatch(/\{\{|\}\}/);
    // The sandbox's own lines do not make a name of the default: no "this is there", no "Thanks, there."
    expect(namelessTranscript).not.toMatch(/this is there|, there[.!]/);
  });
});

describe("the public web-call page", () => {
  async function linkTo(agentId: string, recipient: string): Promise<WebCallLink> {
    const response = await app.inject({ method: "POST", url: "/api/webcall/", headers: bearer(world.org.token), payload: { agent_id: agentId, call_title: "Your order", recipient_name: recipient } });
    expect(response.statusCode, response.body).toBe(201);
    return response.json().data as WebCallLink;
  }

  it("shows the first message rendered for the link's recipient, and its sandbox call's transcript says the same", async () => {
    const agent = await createAgent(app, world.org.token, { agent_name: "Cart Helper", agent_welcome_message: PURCHASE_WELCOME });
    const { slug } = await linkTo(agent.id, "Grace");
    const expected = "Hi Grace! This is an automated assistant calling on behalf of the store about the items you left in your cart. Do you have a minute?";
    const details = (await app.inject({ method: "GET", url: `/api/webcall/public/${slug}` })).json().data as { firstMessage: string };
    expect(details.firstMessage).toBe(expected);

    const started = await app.inject({ method: "POST", url: `/api/webcall/public/${slug}/call`, payload: {} });
    expect(started.statusCode, started.body).toBe(201);
    const { id } = started.json().data as { id: string };
    // The call ran long enough for the greeting.
    await database.db.update(calls).set({ startedAt: new Date(Date.now() - 8_000) }).where(eq(calls.id, id));
    const ended = await app.inject({ method: "POST", url: `/api/webcall/public/${slug}/call/${id}/end`, payload: { reason: "customer-ended-call" } });
    expect(ended.statusCode, ended.body).toBe(200);
    const call = (await getCall(app, world.org.token, id)).json().data as Call;
    expect(call.transcript?.split("\n")[0]).toBe(`AI: ${expected}`);
  });

  it("filters and default variables on the page: upcase of the recipient, today's year", async () => {
    const agent = await createAgent(app, world.org.token, { agent_welcome_message: "WELCOME {{ name | upcase }}, thanks for calling in {{ year }}." });
    const { slug } = await linkTo(agent.id, "Lin");
    const details = (await app.inject({ method: "GET", url: `/api/webcall/public/${slug}` })).json().data as { firstMessage: string };
    expect(details.firstMessage).toBe(`WELCOME LIN, thanks for calling in ${new Date().getUTCFullYear()}.`);
  });

  it("a welcome message Liquid cannot parse is shown as written", async () => {
    const agent = await createAgent(app, world.org.token, { agent_welcome_message: 'Hi {{ name | default: "there" }!' });
    const { slug } = await linkTo(agent.id, "Lin");
    const details = (await app.inject({ method: "GET", url: `/api/webcall/public/${slug}` })).json().data as { firstMessage: string };
    expect(details.firstMessage).toBe('Hi {{ name | default: "there" }!');
  });
});
