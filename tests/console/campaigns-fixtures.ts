/** Campaigns, contacts and do-not-call entries as the API answers them (contract/campaign.ts), and a fake server for the campaign screens. */
import { vi } from "vitest";
import type { Agent } from "../../contract/agent";
import type { Campaign, CampaignContact, ContactImportReport, DncEntry } from "../../contract/campaign";
import { CAMPAIGN_TRANSITIONS, CONTACT_STATUSES, type CampaignAction, type CampaignStatus } from "../../contract/campaign-shared";
import type { PhoneNumber } from "../../contract/phone-number";
import { AGENT_ID, makeAgent } from "./agents-fixtures";
import { json, type FetchFake, type RecordedRequest } from "./fetch-fake";
import { makeNumber, NUMBER_ID } from "./phone-numbers-fixtures";

export { makeNumber, NUMBER_ID };

export const CAMPAIGN_ID = "c0a80121-7ac0-4e1c-9f1a-1b2c3d4e5f60";
export const OTHER_CAMPAIGN_ID = "c0a80121-7ac0-4e1c-9f1a-1b2c3d4e5f61";
export const NEW_CAMPAIGN_ID = "c0a80121-7ac0-4e1c-9f1a-1b2c3d4e5f62";
export const CONTACT_ID = "a1b2c3d4-0000-4000-8000-000000000001";
export const CONTACT_CALL_ID = "7c1e0d5f-8a8b-4c51-9a43-2f4a8f0b7e11";

export type Counts = Campaign["counts"];

export function makeCounts(overrides: Partial<Counts> = {}): Counts {
  const counts = { queued: 0, in_progress: 0, answered: 0, busy: 0, no_answer: 0, voicemail: 0, failed: 0, dnc: 0, needs_timezone: 0, cancelled: 0, ...overrides };
  const total = overrides.total ?? CONTACT_STATUSES.reduce((sum, status) => sum + counts[status], 0);
  return { ...counts, total };
}

export function makeCampaign(overrides: Partial<Campaign> = {}): Campaign {
  return {
    id: CAMPAIGN_ID,
    name: "Spring renewals",
    status: "draft",
    agent_id: AGENT_ID,
    agent_name: "Front desk",
    phone_number_id: NUMBER_ID,
    phone_number: "+14155550142",
    schedule: { windows: [{ days: ["mon", "tue", "wed", "thu", "fri"], start: "09:00", end: "17:00" }], fallback_timezone: null, start_at: null, end_at: null },
    max_concurrency: 2,
    retry: { max_attempts: 3, delay_minutes: 60, on: ["busy", "no-answer", "voicemail"] },
    pause_reason: null,
    pause_code: null,
    counts: makeCounts({ queued: 100 }),
    next_window_at: null,
    concurrency_limit: 10,
    started_at: null,
    completed_at: null,
    created_at: "2026-03-01T09:00:00.000Z",
    updated_at: "2026-03-01T09:00:00.000Z",
    ...overrides,
  };
}

export function makeContact(overrides: Partial<CampaignContact> = {}): CampaignContact {
  return {
    id: CONTACT_ID,
    number: "+14155550100",
    name: "Grace Hopper",
    timezones: ["America/Los_Angeles"],
    timezone: null,
    status: "answered",
    outcome: "answered",
    attempts: 1,
    last_call_id: CONTACT_CALL_ID,
    last_ended_reason: "assistant-ended-call",
    next_attempt_at: null,
    variables: { plan: "Gold" },
    call_ids: [CONTACT_CALL_ID],
    updated_at: "2026-03-05T09:01:15.000Z",
    ...overrides,
  };
}

export function makeDncEntry(overrides: Partial<DncEntry> = {}): DncEntry {
  return { id: "d0000000-0000-4000-8000-000000000000", number: "+14155550199", reason: "Asked by email", source: "manual", call_id: null, created_at: "2026-03-01T09:00:00.000Z", ...overrides };
}

export function makeReport(overrides: Partial<ContactImportReport> = {}): ContactImportReport {
  return { accepted: 0, duplicates: 0, dnc: 0, invalid: [], invalid_count: 0, needs_timezone: 0, variables: [], total_contacts: 0, ...overrides };
}

export interface CampaignServer {
  campaigns: Campaign[];
  contacts: CampaignContact[];
  dnc: DncEntry[];
  /** What POST /campaign/{id}/contacts answers for a JSON import (default: every row accepted). */
  importReport?: (request: RecordedRequest) => ContactImportReport;
}

const page = <T,>(rows: T[], request: RecordedRequest) => {
  const number = Number(request.query.get("page") ?? 1);
  const limit = Number(request.query.get("limit") ?? 20);
  return { data: rows.slice((number - 1) * limit, number * limit), total: rows.length, page: number, limit };
};

/** Where an action takes a campaign (start_at in the future schedules it). */
function afterAction(campaign: Campaign, action: CampaignAction): CampaignStatus {
  if (action === "start") return campaign.schedule.start_at && Date.parse(campaign.schedule.start_at) > Date.now() ? "scheduled" : "running";
  if (action === "pause") return "paused";
  if (action === "resume") return "running";
  return "cancelled";
}

/**
 * A small campaign API over `state`: the list (status, search, paging), one campaign, create, update,
 * the actions (409 from a state that does not allow them), delete, contacts (filters, import), progress,
 * events, export, and the do-not-call list. Also the agents and phone numbers the form picks from.
 */
export function serveCampaigns(
  fetch: FetchFake,
  initial: Partial<CampaignServer> = {},
  { agents = [makeAgent({ agent_name: "Front desk" })], numbers = [makeNumber()] }: { agents?: Agent[]; numbers?: PhoneNumber[] } = {},
): CampaignServer {
  // Copies: the fake changes its campaigns (a pause, a cancel), never the test's own objects.
  const state: CampaignServer = {
    campaigns: structuredClone(initial.campaigns ?? [makeCampaign()]),
    contacts: structuredClone(initial.contacts ?? []),
    dnc: structuredClone(initial.dnc ?? []),
    importReport: initial.importReport,
  };
  const find = (path: string) => state.campaigns.find((campaign) => path.includes(campaign.id));

  fetch.on("GET", "/api/agent/", () => json({ data: agents, total: agents.length, page: 1, limit: 100 }));
  fetch.on("GET", "/api/phonenumber/", () => json({ data: numbers, total: numbers.length, page: 1, limit: 100 }));
  fetch.on("GET", "/api/campaign/", (request) => {
    const status = request.query.get("status");
    const search = request.query.get("search")?.toLowerCase();
    const rows = state.campaigns.filter((campaign) => (!status || campaign.status === status) && (!search || campaign.name.toLowerCase().includes(search)));
    return json(page(rows, request));
  });
  fetch.on("POST", "/api/campaign/", (request) => {
    const body = request.body as Omit<Partial<Campaign>, "schedule"> & { schedule: Partial<Campaign["schedule"]> & Pick<Campaign["schedule"], "windows"> };
    const created = makeCampaign({
      id: NEW_CAMPAIGN_ID,
      name: body.name,
      agent_id: body.agent_id ?? null,
      agent_name: body.agent_id ? (agents.find((agent) => agent.id === body.agent_id)?.agent_name ?? null) : null,
      phone_number_id: body.phone_number_id ?? null,
      phone_number: body.phone_number_id ? (numbers.find((number) => number.id === body.phone_number_id)?.number ?? null) : null,
      schedule: { fallback_timezone: null, start_at: null, end_at: null, ...body.schedule },
      max_concurrency: 1,
      counts: makeCounts(),
    });
    state.campaigns.push(created);
    return json({ data: created }, 201);
  });

  const serveOne = (campaign: Campaign) => {
    const base = `/api/campaign/${campaign.id}`;
    const current = () => find(base)!;
    fetch.on("GET", base, () => (find(base) ? json({ data: current() }) : json({ detail: "Campaign not found", code: "not_found" }, 404)));
    fetch.on("PUT", base, (request) => {
      Object.assign(current(), request.body as object);
      return json({ data: current() });
    });
    fetch.on("DELETE", base, () => {
      state.campaigns = state.campaigns.filter((other) => other.id !== campaign.id);
      return json({ data: { id: campaign.id } });
    });
    for (const action of Object.keys(CAMPAIGN_TRANSITIONS) as CampaignAction[]) {
      fetch.on("POST", `${base}/${action}`, () => {
        const now = current();
        if (!CAMPAIGN_TRANSITIONS[action].includes(now.status)) return json({ detail: `The campaign is ${now.status}: it cannot ${action}.`, code: "conflict" }, 409);
        now.status = afterAction(now, action);
        if (action === "pause") Object.assign(now, { pause_code: "manual", pause_reason: null });
        if (action === "resume") Object.assign(now, { pause_code: null, pause_reason: null });
        return json({ data: now });
      });
    }
    fetch.on("GET", `${base}/contacts`, (request) => {
      const status = request.query.get("status");
      const outcome = request.query.get("outcome");
      const search = request.query.get("search")?.toLowerCase();
      const rows = state.contacts.filter(
        (contact) =>
          (!status || contact.status === status) &&
          (!outcome || contact.outcome === outcome) &&
          (!search || contact.number.includes(search) || (contact.name ?? "").toLowerCase().includes(search)),
      );
      return json(page(rows, request));
    });
    fetch.on("POST", `${base}/contacts`, (request) => {
      const rows = (request.body as { contacts: unknown[] } | undefined)?.contacts ?? [];
      const report = state.importReport?.(request) ?? makeReport({ accepted: rows.length, total_contacts: current().counts.total + rows.length });
      current().counts = makeCounts({ ...current().counts, total: undefined, queued: current().counts.queued + report.accepted });
      return json({ data: report });
    });
    fetch.on("GET", `${base}/progress`, () => json({ data: { bucket_seconds: 3600, points: [] } }));
    fetch.on("GET", `${base}/events`, () => json({ data: [] }));
  };
  for (const campaign of state.campaigns) serveOne(campaign);
  // A campaign created during the test gets its routes too.
  serveOne(makeCampaign({ id: NEW_CAMPAIGN_ID }));

  fetch.on("GET", "/api/dnc/", (request) => {
    const search = request.query.get("search");
    return json(page(state.dnc.filter((entry) => !search || entry.number.includes(search)), request));
  });
  fetch.on("POST", "/api/dnc/", (request) => {
    const { number, reason } = request.body as { number: string; reason: string | null };
    if (state.dnc.some((entry) => entry.number === number)) return json({ data: { added: 0, already_listed: 1, invalid: [], entry: null } });
    const entry = makeDncEntry({ id: `d0000000-0000-4000-8000-${String(state.dnc.length + 1).padStart(12, "0")}`, number, reason, source: "manual" });
    state.dnc.unshift(entry);
    fetch.on("DELETE", `/api/dnc/${entry.id}`, () => {
      state.dnc = state.dnc.filter((other) => other.id !== entry.id);
      return json({ data: { id: entry.id } });
    });
    return json({ data: { added: 1, already_listed: 0, invalid: [], entry } }, 201);
  });
  for (const entry of state.dnc) {
    fetch.on("DELETE", `/api/dnc/${entry.id}`, () => {
      state.dnc = state.dnc.filter((other) => other.id !== entry.id);
      return json({ data: { id: entry.id } });
    });
  }
  return state;
}

/** The query of every request to `path` so far, as plain objects. */
export function queriesTo(fetch: FetchFake, method: string, path: string): Array<Record<string, string>> {
  return fetch.to(method, path).map((request) => Object.fromEntries(request.query));
}

/**
 * XMLHttpRequest (uploads with progress) answered by the fetch fake's routes: the same requests are
 * recorded and a test routes them with `fetch.on`. Upload progress is reported half way, then whole.
 */
export function installXhrFake(fake: FetchFake): void {
  class FakeXhr {
    status = 0;
    responseText = "";
    onload: (() => void) | null = null;
    onerror: (() => void) | null = null;
    onabort: (() => void) | null = null;
    readonly upload: { onprogress: ((event: { lengthComputable: boolean; loaded: number; total: number }) => void) | null } = { onprogress: null };
    private method = "GET";
    private url = "";
    private readonly headers: Record<string, string> = {};

    open(method: string, url: string) {
      this.method = method;
      this.url = url;
    }

    setRequestHeader(name: string, value: string) {
      this.headers[name] = value;
    }

    abort() {
      this.onabort?.();
    }

    send(body: string | FormData) {
      const size = typeof body === "string" ? body.length : 1024;
      void (async () => {
        this.upload.onprogress?.({ lengthComputable: true, loaded: Math.floor(size / 2), total: size });
        try {
          const response = await fake.fetch(this.url, { method: this.method, headers: this.headers, body });
          this.upload.onprogress?.({ lengthComputable: true, loaded: size, total: size });
          this.status = response.status;
          this.responseText = await response.text();
          this.onload?.();
        } catch {
          this.onerror?.();
        }
      })();
    }
  }
  vi.stubGlobal("XMLHttpRequest", FakeXhr);
}
