import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { AGENT_ID, makeAvailability, serveCalendar, WEEK_PATH, ZONE } from "./calendar-fixtures";
import { makeAgent, serveAgents } from "./agents-fixtures";
import { findDialog, findScreen, installFetchFake, json, renderConsole, signedInAs, waitForPath } from "./test-utils";

async function openAvailability(role: "org:admin" | "org:member" = "org:admin", path = WEEK_PATH) {
  const fetch = installFetchFake();
  const server = serveCalendar(fetch);
  const rendered = renderConsole({ path, fetch, session: signedInAs(role) });
  await findScreen("Calendar");
  await rendered.user.click(await screen.findByRole("button", { name: /Availability/ }));
  const drawer = await findDialog("Availability");
  await within(drawer).findByRole("group", { name: "Weekly hours" });
  return { ...rendered, server, drawer };
}

const day = (drawer: HTMLElement, name: string) => within(within(drawer).getByRole("group", { name }));

describe("the availability settings", () => {
  it("show the calendar's rules", async () => {
    const { drawer } = await openAvailability();
    expect(within(drawer).getByRole("combobox", { name: "Calendar" }).closest(".ant-select")).toHaveTextContent("Organisation default");
    expect(within(drawer).getByText(ZONE)).toBeInTheDocument();
    expect(day(drawer, "Monday").getByRole("textbox", { name: "Monday 1 From" })).toHaveValue("09:00");
    expect(day(drawer, "Monday").getByRole("textbox", { name: "Monday 1 Until" })).toHaveValue("17:00");
    expect(day(drawer, "Saturday").getByText("Closed")).toBeInTheDocument();
    expect(within(drawer).getByRole("spinbutton", { name: "Slot length" })).toHaveValue("30");
    expect(within(drawer).getByRole("spinbutton", { name: "Minimum notice" })).toHaveValue("60");
    expect(within(drawer).getByText("2026-12-25")).toBeInTheDocument();
  });

  it("save several ranges a day, copied to every day, the numbers, closed dates and overrides, and show what was saved", async () => {
    const { user, drawer, fetch } = await openAvailability();
    const monday = day(drawer, "Monday");
    await user.clear(monday.getByRole("textbox", { name: "Monday 1 Until" }));
    await user.type(monday.getByRole("textbox", { name: "Monday 1 Until" }), "12:00");
    await user.click(monday.getByRole("button", { name: "Add hours on Monday" }));
    await user.clear(monday.getByRole("textbox", { name: "Monday 2 From" }));
    await user.type(monday.getByRole("textbox", { name: "Monday 2 From" }), "13:00");
    await user.click(monday.getByRole("button", { name: /Copy Monday to all days/ }));
    expect(day(drawer, "Saturday").getByRole("textbox", { name: "Saturday 2 From" })).toHaveValue("13:00");
    await user.click(day(drawer, "Sunday").getByRole("button", { name: "Remove Sunday's range 2" }));
    await user.click(day(drawer, "Sunday").getByRole("button", { name: "Remove Sunday's range 1" }));

    const slot = within(drawer).getByRole("spinbutton", { name: "Slot length" });
    await user.clear(slot);
    await user.type(slot, "45");
    await user.type(within(drawer).getByRole("spinbutton", { name: "Most bookings a day" }), "8");
    const bufferAfter = within(drawer).getByRole("spinbutton", { name: "Buffer after" });
    await user.clear(bufferAfter);
    await user.type(bufferAfter, "10");

    await user.click(within(drawer).getByRole("textbox", { name: "Add a closed date" }));
    await user.keyboard("2026-12-31{Enter}");
    await waitFor(() => expect(within(drawer).getByText("2026-12-31")).toBeInTheDocument());

    await user.click(within(drawer).getByRole("button", { name: /Add a date override/ }));
    await user.click(within(drawer).getByRole("textbox", { name: "Date 1" }));
    await user.keyboard("2026-12-24{Enter}");

    await user.click(within(drawer).getByRole("button", { name: "Save availability" }));
    await screen.findByText("Availability saved");
    const weekdays = ["mon", "tue", "wed", "thu", "fri", "sat"].flatMap((name) => [
      { day: name, start: "09:00", end: "12:00" },
      { day: name, start: "13:00", end: "17:00" },
    ]);
    expect(fetch.to("PUT", "/api/availability/").map((request) => request.body)).toEqual([
      {
        timezone: ZONE,
        weekly: weekdays,
        slot_minutes: 45,
        buffer_before_minutes: 0,
        buffer_after_minutes: 10,
        min_notice_minutes: 60,
        max_days_ahead: 60,
        max_per_day: 8,
        closed_dates: ["2026-12-25", "2026-12-31"],
        date_overrides: [{ date: "2026-12-24", ranges: [{ start: "10:00", end: "14:00" }] }],
      },
    ]);
    // The rules are asked again and the form shows what the server kept.
    await waitFor(() => expect(fetch.to("GET", "/api/availability/").length).toBeGreaterThan(1));
    await waitFor(() => expect(within(drawer).getByRole("spinbutton", { name: "Slot length" })).toHaveValue("45"));
    expect(day(drawer, "Sunday").getByText("Closed")).toBeInTheDocument();
  });

  it("refuse overlapping ranges and times out of order before sending", async () => {
    const { user, drawer, fetch } = await openAvailability();
    const tuesday = day(drawer, "Tuesday");
    await user.click(tuesday.getByRole("button", { name: "Add hours on Tuesday" }));
    await waitFor(() => expect(within(drawer).getByText("The ranges of a day must not overlap")).toBeInTheDocument());
    const until = tuesday.getByRole("textbox", { name: "Tuesday 2 Until" });
    await user.clear(until);
    await user.type(until, "08:00");
    await user.click(within(drawer).getByRole("button", { name: "Save availability" }));
    await waitFor(() => expect(within(drawer).getByText("The end must be after the start")).toBeInTheDocument());
    expect(fetch.to("PUT", "/api/availability/")).toEqual([]);
  });

  it("show the server's reason when it refuses", async () => {
    const { user, drawer, fetch } = await openAvailability();
    fetch.on("PUT", "/api/availability/", () => json({ detail: "timezone must be a time zone the database knows", code: "invalid_body" }, 400));
    await user.click(within(drawer).getByRole("button", { name: "Save availability" }));
    await within(drawer).findByText("timezone must be a time zone the database knows");
  });

  it("give an agent rules of its own: it starts from the organisation's, and the save names the agent", async () => {
    const { user, drawer, fetch } = await openAvailability();
    await user.click(within(drawer).getByRole("combobox", { name: "Calendar" }));
    await user.click((await screen.findAllByTitle("Front desk")).at(-1)!);
    await within(drawer).findByText("This agent uses the organisation's rules. Saving here gives it rules of its own.");
    expect(fetch.to("GET", "/api/availability/").map((request) => request.query.get("agentId"))).toContain(AGENT_ID);
    await user.click(within(drawer).getByRole("button", { name: "Save availability" }));
    await screen.findByText("Availability saved");
    expect(fetch.to("PUT", "/api/availability/").map((request) => (request.body as { agent_id?: string }).agent_id)).toEqual([AGENT_ID]);
    await waitFor(() => expect(within(drawer).queryByText(/This agent uses the organisation's rules/)).toBeNull());
  });

  it("open from a link on an agent's own calendar", async () => {
    const fetch = installFetchFake();
    serveCalendar(fetch).availability.set(AGENT_ID, makeAvailability({ agent_id: AGENT_ID, timezone: "Europe/Berlin", slot_minutes: 20 }));
    renderConsole({ path: `/calendar?availability=${AGENT_ID}`, fetch });
    const drawer = await findDialog("Availability");
    await waitFor(() => expect(within(drawer).getByRole("spinbutton", { name: "Slot length" })).toHaveValue("20"));
    expect(within(drawer).getByRole("combobox", { name: "Calendar" }).closest(".ant-select")).toHaveTextContent("Front desk");
  });

  it("open from the agent page's Set availability, beside its booking switch", async () => {
    const fetch = installFetchFake();
    serveAgents(fetch, [makeAgent({ agent_name: "Front desk" })]);
    serveCalendar(fetch);
    const { user, pathname } = renderConsole({ path: `/agent/${AGENT_ID}`, fetch });
    await findScreen("Edit Agent");
    await user.click(await screen.findByRole("link", { name: "Set availability" }));
    await waitForPath(pathname, "/calendar");
    const drawer = await findDialog("Availability");
    await within(drawer).findByText("This agent uses the organisation's rules. Saving here gives it rules of its own.");
    expect(within(drawer).getByRole("combobox", { name: "Calendar" }).closest(".ant-select")).toHaveTextContent("Front desk");
  });

  it("are read-only for members", async () => {
    const { drawer } = await openAvailability("org:member");
    expect(within(drawer).getByText("Only admins change availability. You can see the rules here.")).toBeInTheDocument();
    expect(within(drawer).queryByRole("button", { name: "Save availability" })).toBeNull();
    expect(within(drawer).queryByRole("button", { name: /Add hours/ })).toBeNull();
    expect(day(drawer, "Monday").getByRole("textbox", { name: "Monday 1 From" })).toBeDisabled();
    expect(within(drawer).getByRole("spinbutton", { name: "Slot length" })).toBeDisabled();
  });
});
