/** GET /subscription/ and its neighbours as the contract describes them, and a fake server for them. */
import { PLANS, type PlanId } from "../../contract/plans";
import type { PlanPreview, Subscription } from "../../contract/subscription";
import { json, type FetchFake, type RecordedRequest } from "./fetch-fake";

export function makeSubscription(plan: PlanId = "starter", overrides: Partial<Subscription> = {}): Subscription {
  return {
    plan: PLANS[plan],
    status: "active",
    limits: PLANS[plan].limits,
    usage: { concurrent_calls: 1, agents: 3, phone_numbers: 2, campaign_contacts: 1_200, seats: 2 },
    current_period_end: "2026-12-20T00:00:00.000Z",
    cancel_at_period_end: false,
    past_due_since: null,
    grace_ends_at: null,
    payments: "stripe",
    over_limits: [],
    ...overrides,
  };
}

/** What GET /subscription/preview answers, worked out from the catalogue (usage over the new limits listed). */
export function makePreview(from: Subscription, to: PlanId, retention: RetentionOverrides = {}): PlanPreview {
  const source = from.plan;
  const target = PLANS[to];
  const order = ["free", "starter", "pro", "enterprise"];
  const direction = to === source.id ? "same" : order.indexOf(to) > order.indexOf(source.id) ? "upgrade" : "downgrade";
  const keys = Object.keys(target.limits) as Array<keyof typeof target.limits>;
  return {
    from: source.id,
    to,
    direction,
    price_change_usd: source.price_usd_monthly === null || target.price_usd_monthly === null ? null : target.price_usd_monthly - source.price_usd_monthly,
    changes: keys.filter((key) => source.limits[key] !== target.limits[key]).map((key) => ({ limit: key, from: source.limits[key], to: target.limits[key] })),
    over_limits: keys.flatMap((key) => {
      if (key === "retention_days") return [];
      const allowed = target.limits[key];
      const usage = from.usage[key];
      return allowed !== null && usage > allowed ? [{ limit: key, usage, allowed }] : [];
    }),
    retention:
      target.limits.retention_days === null
        ? null
        : {
            days: target.limits.retention_days,
            calls: 0,
            cutoff: new Date(Date.now() - target.limits.retention_days * 86_400_000).toISOString(),
            at_period_end: false,
            applies_at: null,
            next_sweep_at: null,
            sweep_every_seconds: 60,
            ...retention,
          },
    contact_sales: target.contact_sales,
  };
}

/** What the preview says the retention sweep deletes (default: nothing, applying at once). */
export type RetentionOverrides = Partial<NonNullable<PlanPreview["retention"]>>;

/**
 * Answers the subscription's requests: GET /subscription/ (`state.subscription`), the preview, POST
 * /subscription/change (`changeUrl`: where it sends the browser, null applies at once) and POST
 * /subscription/portal (`portalUrl`).
 */
export function serveSubscription(
  fetch: FetchFake,
  options: { subscription?: Subscription; changeUrl?: string | null; portalUrl?: string; fail?: boolean; retention?: RetentionOverrides } = {},
) {
  const state = { subscription: options.subscription ?? makeSubscription(), failing: options.fail ?? false };
  fetch.on("GET", "/api/subscription/", () =>
    state.failing ? json({ detail: "The billing service is not answering.", code: "internal" }, 500) : json({ data: state.subscription }),
  );
  fetch.on("GET", "/api/subscription/preview", (request: RecordedRequest) => json({ data: makePreview(state.subscription, request.query.get("plan") as PlanId, options.retention) }));
  fetch.on("POST", "/api/subscription/change", (request: RecordedRequest) => {
    const plan = (request.body as { plan: PlanId }).plan;
    const url = options.changeUrl === undefined ? null : options.changeUrl;
    if (url === null) state.subscription = makeSubscription(plan, { usage: state.subscription.usage });
    return json({ data: { url, subscription: state.subscription } });
  });
  fetch.on("POST", "/api/subscription/portal", () => json({ data: { url: options.portalUrl ?? "https://billing.stripe.com/p/session/test_1" } }));
  return state;
}

/**
 * After a test has followed a link to /billing: that screen (another part of issue 15) asks for its own
 * figures, which are not this test's concern. Forgets those unanswered requests (and only those).
 */
export async function leaveBillingScreenAlone(fetch: FetchFake) {
  await new Promise((resolve) => setTimeout(resolve, 50));
  const others = fetch.unhandled.filter((request) => !/^[A-Z]+ \/api\/(billing|wallet)\b/.test(request));
  fetch.unhandled.splice(0, fetch.unhandled.length, ...others);
}
