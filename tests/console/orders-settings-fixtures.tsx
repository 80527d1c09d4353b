/** Follow-up settings and store integrations as the API answers them (contract/order.ts), and the panels rendered alone. */
import { render } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState, type ComponentType } from "react";
import { vi } from "vitest";
import type { Role } from "../../contract/roles";
import type { FollowUpSettings, Integration } from "../../contract/order";
import type { OrdersPanelProps } from "../../src/components/orders/settings";
import { AGENT_ID, makeAgent } from "./agents-fixtures";
import { json, type FetchFake } from "./fetch-fake";
import { makeNumber, NUMBER_ID } from "./phone-numbers-fixtures";
import { ConsoleProviders, installFetchFake, signedInAs } from "./test-utils";

export { AGENT_ID, NUMBER_ID };
export const OTHER_AGENT_ID = "5b7e6c1a-2f3d-4e5a-9b8c-7d6e5f4a3b2c";
export const FOLLOW_UP_CAMPAIGN_ID = "f0110000-0000-4000-8000-000000000001";
export const INTEGRATION_ID = "1a7e0000-0000-4000-8000-000000000001";
export const SHOP_ID = "1a7e0000-0000-4000-8000-000000000002";

/** The defaults until the first save (server/orders/settings.ts readFollowUpSettings). */
export function makeFollowUpSettings(overrides: Partial<FollowUpSettings> = {}): FollowUpSettings {
  return {
    enabled: false,
    agent_id: AGENT_ID,
    agent_name: "Purchase Completion Agent",
    phone_number_id: NUMBER_ID,
    phone_number: "+14155550142",
    delay_minutes: 30,
    schedule: { windows: [{ days: ["mon", "tue", "wed", "thu", "fri", "sat"], start: "09:00", end: "20:00" }], fallback_timezone: null, start_at: null, end_at: null },
    retry: { max_attempts: 3, delay_minutes: 120, on: ["busy", "no-answer", "failed"] },
    attribution_days: 7,
    max_concurrency: 1,
    state: "off",
    pause_reason: null,
    campaign_id: null,
    ...overrides,
  };
}

export function makeIntegration(overrides: Partial<Integration> = {}): Integration {
  const id = overrides.id ?? INTEGRATION_ID;
  const kind = overrides.kind ?? "generic";
  const path = kind === "shopify" ? "shopify" : kind === "woocommerce" ? "woocommerce" : "store";
  return {
    id,
    kind,
    name: "Sandbox shop",
    webhook_url: `http://localhost:3000/api/webhooks/${path}/${id}`,
    secret_hint: "Xy9Q",
    is_demo: false,
    follow_up: null,
    orders: 12,
    last_delivery_at: "2026-03-05T09:01:15.000Z",
    secret_rotated_at: null,
    created_at: "2026-03-01T09:00:00.000Z",
    ...overrides,
  };
}

/** The agents and numbers the follow-up form picks from. */
export function serveAgentsAndNumbers(fetch: FetchFake) {
  const agents = [makeAgent({ agent_name: "Purchase Completion Agent" }), makeAgent({ id: OTHER_AGENT_ID, agent_name: "Front desk" })];
  const numbers = [makeNumber()];
  fetch.on("GET", "/api/agent/", () => json({ data: agents, total: agents.length, page: 1, limit: 100 }));
  fetch.on("GET", "/api/phonenumber/", () => json({ data: numbers, total: numbers.length, page: 1, limit: 100 }));
}

/**
 * One panel alone, open, as the list page mounts it (its open state, onClose closing it), signed in
 * as `role`; `onChanged` is a spy.
 */
export function renderPanel(Panel: ComponentType<OrdersPanelProps>, { role = "org:admin", fetch = installFetchFake() }: { role?: Role; fetch?: FetchFake } = {}) {
  const onChanged = vi.fn();
  const user = userEvent.setup();
  function Mounted() {
    const [open, setOpen] = useState(true);
    return <Panel open={open} onClose={() => setOpen(false)} onChanged={onChanged} />;
  }
  render(
    <ConsoleProviders session={signedInAs(role)} path="/orders">
      <Mounted />
    </ConsoleProviders>,
  );
  return { user, fetch, onChanged };
}

export function stubClipboard(writeText = vi.fn(async (_text: string) => undefined)) {
  // After user-event's setup, which puts its own clipboard in place.
  Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
  return writeText;
}
