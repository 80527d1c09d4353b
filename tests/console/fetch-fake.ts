/** A fetch fake: answers only what a test says it may, and fails the test on anything else. */
import { afterEach, expect, vi } from "vitest";
import type { Dashboard } from "../../contract/dashboard";
import { billingSummary } from "./billing-fixtures";
import { PLANS } from "../../contract/plans";
import type { Subscription } from "../../contract/subscription";

export interface RecordedRequest {
  method: string;
  /** Path and query as sent, e.g. "/api/call/?page=1&limit=20". */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: Headers;
  body: unknown;
}

type Responder = (request: RecordedRequest) => Response | Promise<Response>;

export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

export class FetchFake {
  readonly requests: RecordedRequest[] = [];
  readonly unhandled: string[] = [];
  private routes: Array<{ method: string; path: string; respond: Responder }> = [];
  private fallbacks: Array<{ method: string; path: string; respond: Responder }> = [];

  on(method: string, path: string, respond: Responder): this {
    this.routes.push({ method: method.toUpperCase(), path, respond });
    return this;
  }

  /** An answer used only when no route (`on`) matches: a default any test can override. */
  fallback(method: string, path: string, respond: Responder): this {
    this.fallbacks.push({ method: method.toUpperCase(), path, respond });
    return this;
  }

  readonly fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : null;
    const url = new URL(request ? request.url : String(input), window.location.origin);
    const method = (init?.method ?? request?.method ?? "GET").toUpperCase();
    const rawBody = init?.body ?? (request ? await request.clone().text() : undefined);
    const recorded: RecordedRequest = {
      method,
      url: `${url.pathname}${url.search}`,
      path: url.pathname,
      query: url.searchParams,
      headers: new Headers(init?.headers ?? request?.headers),
      // JSON as the value it holds; a multipart body (a file upload) as the FormData sent.
      body: typeof rawBody === "string" && rawBody ? JSON.parse(rawBody) : rawBody instanceof FormData ? rawBody : undefined,
    };
    this.requests.push(recorded);
    // The latest handler for a method and path wins, so a test can change an answer midway.
    const matches = (candidate: { method: string; path: string }) => candidate.method === method && candidate.path === url.pathname;
    const route = this.routes.findLast(matches) ?? this.fallbacks.findLast(matches);
    if (!route) {
      this.unhandled.push(`${method} ${recorded.url}`);
      throw new TypeError(`Unhandled request in test: ${method} ${recorded.url}`);
    }
    return route.respond(recorded);
  });

  to(method: string, path: string): RecordedRequest[] {
    return this.requests.filter((request) => request.method === method.toUpperCase() && request.path === path);
  }
}

/** The dashboard of an organisation with no agent yet (its first-run state). */
function emptyOrganizationDashboard(): Dashboard {
  const totals = { calls: 0, minutes: 0, cost: 0, avg_duration_seconds: null, answer_rate: null, success_rate: null, cost_per_minute: null, ended: 0, answered: 0, evaluated: 0, successful: 0, duration_seconds: 0 };
  const outcomes = { answered: 0, busy: 0, no_answer: 0, voicemail: 0, failed: 0, in_progress: 0 };
  return {
    period: { start_date: "2026-03-01", end_date: "2026-03-30", timezone: "UTC", days: 30 },
    previous_period: { start_date: "2026-01-30", end_date: "2026-02-28" },
    totals,
    previous: totals,
    outcomes,
    previous_outcomes: outcomes,
    series: [],
    agents: [],
    wallet: { balance: 10, held: 0, available: 10 },
    setup: { agents: 0, calls_ever: false },
    campaigns: { running: 0, items: [] },
    appointments: { today: 0, next_7_days: 0, upcoming: [] },
  };
}

/** An organisation on the Free plan, nothing over its limits (the /subscriptions screen's answer). */
function freeSubscription(): Subscription {
  return {
    plan: PLANS.free,
    status: "active",
    limits: PLANS.free.limits,
    usage: { concurrent_calls: 0, agents: 0, phone_numbers: 0, campaign_contacts: 0, seats: 1 },
    current_period_end: null,
    cancel_at_period_end: false,
    past_due_since: null,
    grace_ends_at: null,
    payments: "sandbox",
    over_limits: [],
  };
}

let activeFake: FetchFake | null = null;

/**
 * Replaces global fetch for this test; a request nobody handled fails the test afterwards. Signing in
 * lands on the dashboard, so its own requests (its figures, the organisation's zone) are answered for
 * an organisation with no agent yet unless the test routes them itself (tests/console/dashboard-fixtures.ts).
 */
export function installFetchFake(): FetchFake {
  const fake = new FetchFake();
  fake.fallback("GET", "/api/dashboard/", () => json({ data: emptyOrganizationDashboard() }));
  fake.fallback("GET", "/api/organization/settings", () => json({ data: { timezone: "UTC" } }));
  // Tests of the shell and the session open /billing: its summary, unless the test routes it itself.
  fake.fallback("GET", "/api/billing/", () => json({ data: billingSummary() }));
  // VIEW PLANS (in the shell) opens /subscriptions, which asks for the subscription.
  fake.fallback("GET", "/api/subscription/", () => json({ data: freeSubscription() }));
  activeFake = fake;
  vi.stubGlobal("fetch", fake.fetch);
  return fake;
}

afterEach(() => {
  if (activeFake) {
    const unhandled = activeFake.unhandled;
    activeFake = null;
    expect(unhandled, "requests no test handler answered").toEqual([]);
  }
});

/** A list's failing answer in the tests of failingList: a 500 with the server's detail. */
export const RESTARTING = "The database is restarting";

/**
 * A list that fails, then recovers: `failure` (a 500 saying RESTARTING unless given) until `recover()`;
 * after it each request waits until `release()` and gets `answer`, so a test can look at the screen while
 * a Retry is on its way (tests/console/test-utils.tsx: retryFailedList).
 */
export function failingList(answer: Responder, failure: () => Response = () => json({ detail: RESTARTING, code: "internal_error" }, 500)) {
  let failing = true;
  let waiting = 0;
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  return {
    respond: async (request: RecordedRequest): Promise<Response> => {
      if (failing) return failure();
      waiting += 1;
      await released;
      return answer(request);
    },
    recover: () => {
      failing = false;
    },
    /** Requests since recover(), answered or still waiting. */
    asked: () => waiting,
    release: () => release(),
  };
}
