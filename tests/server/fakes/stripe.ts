/**
 * A local stand-in for Stripe's REST API (the calls server/billing/payments/stripe.ts makes): node http
 * on 127.0.0.1 with a random port, reached through STRIPE_API_URL. It decodes Stripe's form-encoded
 * bodies (`a[b][0]=c`) into nested objects, records every request (method, path, query, decoded body,
 * headers — Idempotency-Key among them), replays the first answer for a repeated Idempotency-Key like
 * Stripe does, and answers objects shaped like Stripe's own examples (../shared/vendor/stripe/fixtures3.json)
 * with the fields the request set. A test can make payment intents answer a card error
 * (authentication_required, card_declined, insufficient_funds) and complete a checkout session.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const STRIPE_VENDOR_DIR = join(ROOT, "..", "shared", "vendor", "stripe");

/** Reads a file of ../shared/vendor/stripe, failing with where it is expected when it is not there. */
export function readStripeVendorFile(name: "openapi-requests.json" | "fixtures3.json"): unknown {
  const path = join(STRIPE_VENDOR_DIR, name);
  if (!existsSync(path)) {
    throw new Error(
      `Stripe's ${name} is expected at ${path} (shared/vendor/stripe/${name} beside the project folder). ` +
        "It is not copied into the project; put it back there to run the Stripe contract tests.",
    );
  }
  return JSON.parse(readFileSync(path, "utf8"));
}

export type FormValue = string | FormValue[] | { [key: string]: FormValue };

/** Decodes a form-encoded body (`a[b][0]=c&a[b][1]=d`) into nested objects; all-numeric keys make arrays. */
export function decodeStripeForm(body: string): Record<string, FormValue> {
  const root: Record<string, unknown> = {};
  for (const [rawKey, value] of new URLSearchParams(body)) {
    const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(rawKey);
    if (!match) throw new Error(`undecodable form key ${rawKey}`);
    const segments = [match[1]!, ...[...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1]!)];
    let node = root;
    segments.forEach((segment, index) => {
      if (index === segments.length - 1) {
        if (segment in node) throw new Error(`form key ${rawKey} given twice`);
        node[segment] = value;
      } else {
        node[segment] ??= {};
        node = node[segment] as Record<string, unknown>;
      }
    });
  }
  const arrays = (value: unknown): FormValue => {
    if (typeof value === "string") return value;
    const object = value as Record<string, unknown>;
    const keys = Object.keys(object);
    if (keys.length > 0 && keys.every((key) => /^\d+$/.test(key))) {
      const sorted = keys.map(Number).sort((a, b) => a - b);
      if (sorted.some((n, i) => n !== i)) throw new Error(`array with holes: ${keys.join(",")}`);
      return sorted.map((n) => arrays(object[String(n)]));
    }
    return Object.fromEntries(keys.map((key) => [key, arrays(object[key])]));
  };
  return arrays(root) as Record<string, FormValue>;
}

export interface StripeRecordedRequest {
  method: string;
  /** Path without the query. */
  path: string;
  query: Record<string, FormValue>;
  /** The decoded form body ({} for none). */
  body: Record<string, FormValue>;
  /** The raw form body. */
  rawBody: string;
  headers: IncomingHttpHeaders;
  /** The Idempotency-Key header, or null. */
  idempotencyKey: string | null;
}

export type StripeCardErrorCode = "authentication_required" | "card_declined" | "insufficient_funds";

export interface FakeStripe {
  url: string;
  secretKey: string;
  requests: StripeRecordedRequest[];
  customers: Map<string, Record<string, unknown>>;
  checkoutSessions: Map<string, Record<string, unknown>>;
  paymentIntents: Map<string, Record<string, unknown>>;
  subscriptions: Map<string, Record<string, unknown>>;
  /** The next `times` (default 1) POST /v1/payment_intents answer this card error (402). */
  failPaymentIntents(code: StripeCardErrorCode, times?: number): void;
  /** The next POST /v1/payment_intents answers 200 with a PaymentIntent left in this status (e.g. requires_action). */
  nextPaymentIntentStatus(status: string): void;
  /** Marks a checkout session paid and complete with a saved Visa card and a charge with a receipt. */
  completeCheckout(sessionId: string): void;
  /** Adds a subscription (as checkout would have made it) with one item on `priceId`. */
  addSubscription(input: { customerId: string; priceId?: string; productId?: string }): Record<string, unknown>;
  reset(): void;
  close(): Promise<void>;
}

const clone = <T>(value: T): T => structuredClone(value);
const id = (prefix: string) => `${prefix}_${randomBytes(12).toString("base64url").replace(/[-_]/g, "x")}`;
const now = () => Math.floor(Date.now() / 1000);

const CARD_ERRORS: Record<StripeCardErrorCode, { code: string; decline_code?: string; message: string }> = {
  authentication_required: {
    code: "authentication_required",
    decline_code: "authentication_required",
    message: "Your card was declined. This transaction requires authentication.",
  },
  card_declined: { code: "card_declined", decline_code: "generic_decline", message: "Your card was declined." },
  insufficient_funds: { code: "card_declined", decline_code: "insufficient_funds", message: "Your card has insufficient funds." },
};

export async function startFakeStripe(options: { secretKey?: string } = {}): Promise<FakeStripe> {
  const secretKey = options.secretKey ?? "sk_test_fake_stripe";
  const fixtures = (readStripeVendorFile("fixtures3.json") as { resources: Record<string, Record<string, unknown>> }).resources;
  const fixture = (name: string): Record<string, unknown> => {
    const found = fixtures[name];
    if (!found) throw new Error(`fixtures3.json has no resource ${name}`);
    return clone(found);
  };

  const requests: StripeRecordedRequest[] = [];
  const customers = new Map<string, Record<string, unknown>>();
  const checkoutSessions = new Map<string, Record<string, unknown>>();
  const paymentIntents = new Map<string, Record<string, unknown>>();
  const paymentMethods = new Map<string, Record<string, unknown>>();
  const charges = new Map<string, Record<string, unknown>>();
  const subscriptions = new Map<string, Record<string, unknown>>();
  const replays = new Map<string, { status: number; body: unknown }>();
  let cardError: { code: StripeCardErrorCode; times: number } | null = null;
  let nextStatus: string | null = null;

  const makeCard = (customer: string | null) => {
    const pm: Record<string, unknown> = { ...fixture("payment_method"), id: id("pm"), customer, type: "card" };
    pm.card = { ...(pm.card as Record<string, unknown>), brand: "visa", last4: "4242", exp_month: 12, exp_year: 2034 };
    paymentMethods.set(pm.id as string, pm);
    return pm;
  };
  const makeCharge = (intent: Record<string, unknown>) => {
    const chargeId = id("ch");
    const charge = {
      ...fixture("charge"),
      id: chargeId,
      amount: intent.amount,
      currency: intent.currency,
      customer: intent.customer,
      payment_intent: intent.id,
      payment_method: intent.payment_method,
      paid: true,
      status: "succeeded",
      receipt_url: `https://pay.stripe.com/receipts/payment/${chargeId}`,
    };
    charges.set(chargeId, charge);
    return charge;
  };
  const makeIntent = (fields: Record<string, unknown>) => {
    const intent: Record<string, unknown> = { ...fixture("payment_intent"), id: id("pi"), created: now(), livemode: false, latest_charge: null, ...fields };
    delete intent.client_secret;
    paymentIntents.set(intent.id as string, intent);
    return intent;
  };

  /** Expands the dotted paths of `expand` (payment_intent.payment_method, latest_charge, …) on a copy. */
  const expand = (object: Record<string, unknown>, paths: string[]): Record<string, unknown> => {
    const copy = clone(object);
    const lookup = (field: string, value: string): Record<string, unknown> | undefined =>
      (field === "payment_intent" ? paymentIntents : field === "payment_method" ? paymentMethods : field === "latest_charge" ? charges : field === "customer" ? customers : field === "subscription" ? subscriptions : undefined)?.get(value);
    for (const path of paths) {
      let node: Record<string, unknown> | null = copy;
      for (const field of path.split(".")) {
        if (!node) break;
        const value: unknown = node[field];
        if (typeof value === "string") {
          const found = lookup(field, value);
          node[field] = found ? clone(found) : value;
        }
        node = node[field] && typeof node[field] === "object" ? (node[field] as Record<string, unknown>) : null;
      }
    }
    return copy;
  };
  const expandList = (value: FormValue | undefined): string[] => (Array.isArray(value) ? (value as string[]) : []);

  const notFound = (kind: string, value: string) => ({
    status: 404,
    body: { error: { type: "invalid_request_error", code: "resource_missing", message: `No such ${kind}: '${value}'`, param: "id" } },
  });

  function route(method: string, path: string, body: Record<string, FormValue>, query: Record<string, FormValue>): { status: number; body: unknown } {
    let m: RegExpExecArray | null;
    if (method === "POST" && path === "/v1/customers") {
      const customer = { ...fixture("customer"), id: id("cus"), created: now(), livemode: false, name: body.name ?? null, email: body.email ?? null, metadata: body.metadata ?? {} };
      customers.set(customer.id as string, customer);
      return { status: 200, body: customer };
    }
    if (method === "POST" && path === "/v1/checkout/sessions") {
      const sessionId = `cs_test_${randomBytes(24).toString("base64url").replace(/[-_]/g, "x")}`;
      const lineItems = body.line_items as Record<string, Record<string, FormValue>>[] | undefined;
      const cents = Number(lineItems?.[0]?.price_data?.unit_amount ?? 0) * Number(lineItems?.[0]?.quantity ?? 1);
      const session: Record<string, unknown> = {
        ...fixture("checkout.session"),
        id: sessionId,
        object: "checkout.session",
        created: now(),
        expires_at: now() + 24 * 3600,
        livemode: false,
        mode: body.mode,
        customer: body.customer ?? null,
        client_reference_id: body.client_reference_id ?? null,
        metadata: body.metadata ?? {},
        success_url: body.success_url ?? null,
        cancel_url: body.cancel_url ?? null,
        currency: "usd",
        amount_subtotal: cents,
        amount_total: cents,
        status: "open",
        payment_status: "unpaid",
        payment_intent: null,
        subscription: null,
        url: `https://checkout.stripe.com/c/pay/${sessionId}`,
      };
      checkoutSessions.set(sessionId, session);
      return { status: 200, body: session };
    }
    if (method === "GET" && (m = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path))) {
      const session = checkoutSessions.get(m[1]!);
      if (!session) return notFound("checkout.session", m[1]!);
      return { status: 200, body: expand(session, expandList(query.expand)) };
    }
    if (method === "POST" && path === "/v1/payment_intents") {
      if (cardError) {
        const { code } = cardError;
        cardError.times -= 1;
        if (cardError.times <= 0) cardError = null;
        const error = CARD_ERRORS[code];
        const intent = makeIntent({
          amount: Number(body.amount),
          currency: body.currency,
          customer: body.customer ?? null,
          payment_method: body.payment_method ?? null,
          metadata: body.metadata ?? {},
          status: "requires_payment_method",
          last_payment_error: { type: "card_error", ...error },
        });
        return { status: 402, body: { error: { type: "card_error", ...error, payment_intent: intent, doc_url: `https://docs.stripe.com/error-codes/${error.code}` } } };
      }
      const intent: Record<string, unknown> = makeIntent({
        amount: Number(body.amount),
        amount_received: Number(body.amount),
        currency: body.currency,
        customer: body.customer ?? null,
        payment_method: body.payment_method ?? null,
        metadata: body.metadata ?? {},
        status: nextStatus ?? "succeeded",
      });
      if (nextStatus && nextStatus !== "succeeded") {
        nextStatus = null;
        return { status: 200, body: intent };
      }
      intent.latest_charge = makeCharge(intent).id;
      paymentIntents.set(intent.id as string, intent);
      return { status: 200, body: expand(intent, expandList(body.expand)) };
    }
    if (method === "POST" && path === "/v1/refunds") {
      const intent = paymentIntents.get(String(body.payment_intent));
      if (!intent) return notFound("payment_intent", String(body.payment_intent));
      const refund = { ...fixture("refund"), id: id("re"), amount: Number(body.amount), currency: intent.currency, payment_intent: intent.id, charge: intent.latest_charge, metadata: body.metadata ?? {}, status: "succeeded", created: now() };
      return { status: 200, body: refund };
    }
    if ((m = /^\/v1\/subscriptions\/([^/]+)$/.exec(path))) {
      const subscription = subscriptions.get(m[1]!);
      if (!subscription) return notFound("subscription", m[1]!);
      if (method === "GET") return { status: 200, body: subscription };
      if (method === "DELETE") {
        Object.assign(subscription, { status: "canceled", canceled_at: now(), ended_at: now() });
        return { status: 200, body: subscription };
      }
      if (method === "POST") {
        if (body.cancel_at_period_end !== undefined) subscription.cancel_at_period_end = body.cancel_at_period_end === "true";
        if (body.metadata) subscription.metadata = { ...(subscription.metadata as object), ...(body.metadata as object) };
        const items = body.items as Record<string, FormValue>[] | undefined;
        if (items) {
          const data = (subscription.items as { data: Record<string, unknown>[] }).data;
          for (const change of items) {
            const item = data.find((candidate) => candidate.id === change.id);
            if (!item) return notFound("subscription_item", String(change.id));
            const priceData = change.price_data as Record<string, FormValue> | undefined;
            item.price = {
              ...(item.price as object),
              id: typeof change.price === "string" ? change.price : id("price"),
              product: priceData?.product ?? (item.price as Record<string, unknown>).product,
              unit_amount: priceData ? Number(priceData.unit_amount) : (item.price as Record<string, unknown>).unit_amount,
            };
          }
        }
        return { status: 200, body: subscription };
      }
    }
    if (method === "POST" && path === "/v1/billing_portal/sessions") {
      const portalId = id("bps");
      return {
        status: 200,
        body: { ...fixture("billing_portal.session"), id: portalId, customer: body.customer, return_url: body.return_url ?? null, created: now(), url: `https://billing.stripe.com/p/session/test_${portalId}` },
      };
    }
    return { status: 404, body: { error: { type: "invalid_request_error", message: `Unrecognized request URL (${method}: ${path}).` } } };
  }

  function addSubscription({ customerId, priceId, productId }: { customerId: string; priceId?: string; productId?: string }): Record<string, unknown> {
    const subscription: Record<string, unknown> = { ...fixture("subscription"), id: id("sub"), customer: customerId, status: "active", cancel_at_period_end: false, cancel_at: null, canceled_at: null, ended_at: null, metadata: {} };
      const items = subscription.items as { data: Record<string, unknown>[] };
      const item = clone(items.data[0]!);
      item.id = id("si");
      item.subscription = subscription.id;
      item.price = { ...(item.price as object), id: priceId ?? id("price"), product: productId ?? id("prod") };
      items.data = [item];
      subscriptions.set(subscription.id as string, subscription);
      return subscription;
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://stripe.local");
      const rawBody = Buffer.concat(chunks).toString("utf8");
      const method = req.method ?? "GET";
      let answer: { status: number; body: unknown };
      let record: StripeRecordedRequest | null = null;
      try {
        const body = decodeStripeForm(rawBody);
        const query = decodeStripeForm(url.search.slice(1));
        const key = typeof req.headers["idempotency-key"] === "string" ? req.headers["idempotency-key"] : null;
        record = { method, path: url.pathname, query, body, rawBody, headers: req.headers, idempotencyKey: key };
        requests.push(record);
        if (req.headers.authorization !== `Bearer ${secretKey}`) {
          answer = { status: 401, body: { error: { type: "invalid_request_error", message: "Invalid API Key provided." } } };
        } else if (key && replays.has(`${method} ${key}`)) {
          answer = replays.get(`${method} ${key}`)!;
        } else {
          answer = route(method, url.pathname, body, query);
          if (key && method !== "GET") replays.set(`${method} ${key}`, answer);
        }
      } catch (error) {
        answer = { status: 400, body: { error: { type: "invalid_request_error", message: (error as Error).message } } };
      }
      res.writeHead(answer.status, { "content-type": "application/json", "request-id": id("req") });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    secretKey,
    requests,
    customers,
    checkoutSessions,
    paymentIntents,
    subscriptions,
    nextPaymentIntentStatus(status) {
      nextStatus = status;
    },
    failPaymentIntents(code, times = 1) {
      cardError = { code, times };
    },
    completeCheckout(sessionId) {
      const session = checkoutSessions.get(sessionId);
      if (!session) throw new Error(`no checkout session ${sessionId}`);
      const customer = (session.customer as string | null) ?? null;
      if (session.mode === "subscription") {
        const subscription = addSubscription({ customerId: customer ?? id("cus") });
        subscription.metadata = session.metadata;
        Object.assign(session, { status: "complete", payment_status: "paid", subscription: subscription.id });
        return;
      }
      const card = makeCard(customer);
      const intent = makeIntent({
        amount: session.amount_total,
        amount_received: session.amount_total,
        currency: "usd",
        customer,
        payment_method: card.id,
        status: "succeeded",
        metadata: session.metadata,
      });
      intent.latest_charge = makeCharge(intent).id;
      Object.assign(session, { status: "complete", payment_status: "paid", payment_intent: intent.id });
    },
    addSubscription,
    reset() {
      requests.length = 0;
      cardError = null;
      nextStatus = null;
    },
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
