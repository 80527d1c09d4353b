import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { CALLING_HOURS_RULE } from "../../contract/calling-rules";
import { FollowUpSettingsDrawer } from "../../src/components/orders/settings";
import { AGENT_ID, FOLLOW_UP_CAMPAIGN_ID, makeFollowUpSettings, NUMBER_ID, OTHER_AGENT_ID, renderPanel, serveAgentsAndNumbers } from "./orders-settings-fixtures";
import { pickOption } from "./agents-fixtures";
import { findDialog, installFetchFake, json } from "./test-utils";
import type { FollowUpSettings } from "../../contract/order";

async function openSettings({ role = "org:admin", settings = makeFollowUpSettings() }: { role?: "org:admin" | "org:member"; settings?: FollowUpSettings } = {}) {
  const fetch = installFetchFake();
  serveAgentsAndNumbers(fetch);
  let current = settings;
  fetch.on("GET", "/api/order/follow-up", () => json({ data: current }));
  fetch.on("PUT", "/api/order/follow-up", (request) => {
    const body = request.body as { enabled: boolean; delay_minutes: number };
    current = { ...current, enabled: body.enabled, delay_minutes: body.delay_minutes, state: body.enabled ? "running" : "off", campaign_id: FOLLOW_UP_CAMPAIGN_ID };
    return json({ data: current });
  });
  const rendered = renderPanel(FollowUpSettingsDrawer, { role, fetch });
  const drawer = await findDialog("Follow-up settings");
  await within(drawer).findByRole("switch", { name: "Automatic follow-up" });
  return { ...rendered, drawer };
}

const windowOf = (drawer: HTMLElement, index: number) => within(drawer).getByRole("group", { name: `Window ${index}` });

describe("the follow-up settings", () => {
  it("shows that consent is required and which calling rules apply", async () => {
    const { drawer } = await openSettings();
    expect(within(drawer).getByText("Consent is required")).toBeInTheDocument();
    expect(within(drawer).getByText(/A store's email or SMS marketing consent is never consent to be called/)).toBeInTheDocument();
    expect(within(drawer).getByText(/Calls only between 08:00 and 21:00 in the customer's local time \(47 CFR § 64\.1200\(c\)\(1\)\)/)).toBeInTheDocument();
    expect(within(drawer).getByText(/At most 3 calls to one number in any 24 hours/)).toBeInTheDocument();
    expect(within(drawer).getByText(/Rules as of 2026-11-27/)).toBeInTheDocument();
    // The defaults: off, the Purchase Completion Agent, 30 minutes, Mon–Sat 09:00–20:00, 7 days.
    expect(within(drawer).getByRole("switch", { name: "Automatic follow-up" })).not.toBeChecked();
    expect(within(drawer).getByText("Purchase Completion Agent")).toBeInTheDocument();
    expect(within(drawer).getByLabelText("Delay after abandonment")).toHaveValue("30");
    expect(within(windowOf(drawer, 1)).getByLabelText("From")).toHaveValue("09:00");
    expect(within(windowOf(drawer, 1)).getByLabelText("Until")).toHaveValue("20:00");
    expect(within(drawer).getByLabelText("Attribution window")).toHaveValue("7");
  });

  it("saves what the admin set: on, another agent, no delay, the widest window, a fallback zone", async () => {
    const { user, fetch, drawer, onChanged } = await openSettings();
    await user.click(within(drawer).getByRole("switch", { name: "Automatic follow-up" }));
    await pickOption(user, "Agent", "Front desk");
    const delay = within(drawer).getByLabelText("Delay after abandonment");
    await user.clear(delay);
    await user.type(delay, "0");
    await user.click(within(drawer).getByRole("button", { name: "Every day 8–21" }));
    await user.click(within(drawer).getByRole("button", { name: "Save settings" }));

    await screen.findByText("Follow-up settings saved");
    expect(fetch.to("PUT", "/api/order/follow-up").map((request) => request.body)).toEqual([
      {
        enabled: true,
        agent_id: OTHER_AGENT_ID,
        phone_number_id: NUMBER_ID,
        delay_minutes: 0,
        schedule: { windows: [{ days: ["mon", "tue", "wed", "thu", "fri", "sat", "sun"], start: "08:00", end: "21:00" }], fallback_timezone: null },
        retry: { max_attempts: 3, delay_minutes: 120, on: ["busy", "no-answer", "failed"] },
        attribution_days: 7,
        max_concurrency: 1,
      },
    ]);
    expect(onChanged).toHaveBeenCalledTimes(1);
    await waitFor(() => expect(within(drawer).getByText("Running")).toBeInTheDocument());
  });

  it("refuses a window outside 08:00–21:00 in the form, and sends nothing", async () => {
    const { user, fetch, drawer } = await openSettings();
    const until = within(windowOf(drawer, 1)).getByLabelText("Until");
    await user.clear(until);
    await user.type(until, "22:00");
    await user.click(within(drawer).getByRole("button", { name: "Save settings" }));

    // The form re-renders its error list while it validates: wait for the message to stay, not for its first copy.
    await waitFor(() => expect(within(drawer).getByText("Window 1: calls about a purchase may only be made between 08:00 and 21:00 in the customer's local time.")).toBeInTheDocument());
    expect(fetch.to("PUT", "/api/order/follow-up")).toHaveLength(0);
  });

  it("shows the server's 400 readably, and a failed save changes nothing", async () => {
    const { user, fetch, drawer, onChanged } = await openSettings();
    fetch.on("PUT", "/api/order/follow-up", () => json({ detail: `schedule.windows: ${CALLING_HOURS_RULE}; agent_id: ${AGENT_ID} is not an agent of this organisation`, code: "validation_error" }, 400));
    await user.click(within(drawer).getByRole("switch", { name: "Automatic follow-up" }));
    await user.click(within(drawer).getByRole("button", { name: "Save settings" }));

    const alert = (await within(drawer).findByText("The follow-up settings were not saved")).closest<HTMLElement>('[role="alert"]')!;
    expect(within(alert).getByText("The follow-up settings were not saved")).toBeInTheDocument();
    expect(within(alert).getByText(`Calling windows: ${CALLING_HOURS_RULE}`)).toBeInTheDocument();
    expect(within(alert).getByText(`Agent: ${AGENT_ID} is not an agent of this organisation`)).toBeInTheDocument();
    expect(within(alert).getByText("Nothing was changed. Correct the settings and save again.")).toBeInTheDocument();
    expect(onChanged).not.toHaveBeenCalled();
    // What the admin chose stays in the form, to correct and save again.
    expect(within(drawer).getByRole("switch", { name: "Automatic follow-up" })).toBeChecked();
    expect(screen.queryByText("Follow-up settings saved")).toBeNull();
  });

  it("asks for an agent and a caller number before switching automatic follow-up on", async () => {
    const { user, fetch, drawer } = await openSettings({ settings: makeFollowUpSettings({ agent_id: null, agent_name: null }) });
    await user.click(within(drawer).getByRole("switch", { name: "Automatic follow-up" }));
    await user.click(within(drawer).getByRole("button", { name: "Save settings" }));
    // Looked for afresh until it shows: antd may replace a shown error's node when the form validates again
    // (a node found once was out of the document by the next line in one CI run under load).
    await waitFor(() => expect(within(drawer).getAllByText("Automatic follow-up needs the agent that makes the calls").length).toBeGreaterThan(0));
    expect(fetch.to("PUT", "/api/order/follow-up")).toHaveLength(0);
  });

  it("says why a paused follow-up stopped, and that saving with it on resumes it", async () => {
    const { drawer } = await openSettings({ settings: makeFollowUpSettings({ enabled: true, state: "paused", pause_reason: "The wallet balance is too low.", campaign_id: FOLLOW_UP_CAMPAIGN_ID }) });
    expect(within(drawer).getByText("Follow-up is paused")).toBeInTheDocument();
    expect(within(drawer).getByText("The wallet balance is too low. Save with automatic follow-up on to resume it.")).toBeInTheDocument();
  });

  it("a member sees the settings but cannot change them", async () => {
    const { drawer } = await openSettings({ role: "org:member" });
    expect(within(drawer).getByText("Only an organization admin can change these settings.")).toBeInTheDocument();
    expect(within(drawer).getByRole("switch", { name: "Automatic follow-up" })).toBeDisabled();
    expect(within(drawer).queryByRole("button", { name: "Save settings" })).toBeNull();
  });
});
