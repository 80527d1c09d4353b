import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { AGENT_ID } from "./agents-fixtures";
import { makeDashboard, serveDashboard, ZONE } from "./dashboard-fixtures";
import { serveCalendar } from "./calendar-fixtures";
import { findDialog, findScreen, installFetchFake, renderConsole, waitForPath } from "./test-utils";

const APPOINTMENT = {
  id: "a9900000-0000-4000-8000-000000000001",
  title: "Consultation",
  // 23:30 UTC is already the next day, 00:30, in Berlin (the organisation's zone here).
  start: "2026-12-09T23:30:00.000Z",
  end: "2026-12-10T00:00:00.000Z",
  customer_name: "Grace Hopper",
  agent_id: AGENT_ID,
  agent_name: "Front desk",
  source: "agent",
  call_id: null,
};

/** The dashboard; `calendar` also answers the calendar's requests, for the tests that follow a link there. */
async function openDashboard(dashboard: ReturnType<typeof makeDashboard>, calendar = false) {
  const fetch = serveDashboard(installFetchFake(), { answer: () => dashboard });
  if (calendar) serveCalendar(fetch);
  const rendered = renderConsole({ path: "/dashboard", fetch });
  await findScreen("Dashboard");
  await screen.findByRole("link", { name: /^Calls / });
  return rendered;
}

describe("the dashboard's upcoming appointments", () => {
  it("counts today's and the next 7 days', and lists the next ones in the organisation's zone, each opening in the calendar", async () => {
    await openDashboard(
      makeDashboard({
        appointments: {
          today: 2,
          next_7_days: 11,
          upcoming: [APPOINTMENT, { ...APPOINTMENT, id: "a9900000-0000-4000-8000-000000000002", title: "<b>Follow-up</b>", start: "2026-12-11T09:00:00.000Z", customer_name: null, agent_id: null, agent_name: null }],
        },
      }),
    );
    const card = screen.getByRole("region", { name: "Upcoming appointments" });
    expect(within(card).getByText("2 today · 11 in the next 7 days")).toBeInTheDocument();
    const first = within(card).getByRole("link", { name: "Open Consultation, Thu 10 Dec 00:30" }).closest("li")!;
    expect(within(first).getByText("Thu 10 Dec 00:30")).toHaveAttribute("datetime", APPOINTMENT.start);
    expect(within(first).getByText("Grace Hopper · Front desk")).toBeInTheDocument();
    // A title is text, never markup; an appointment without customer or agent says so.
    const second = within(card).getByRole("link", { name: "Open <b>Follow-up</b>, Fri 11 Dec 10:00" }).closest("li")!;
    expect(within(second).getByText("No customer named · No agent")).toBeInTheDocument();
  });

  it("opens the calendar on the appointment's day in the organisation's zone, with the appointment open", async () => {
    const { user, pathname } = await openDashboard(makeDashboard({ appointments: { today: 0, next_7_days: 1, upcoming: [APPOINTMENT] } }), true);
    const card = screen.getByRole("region", { name: "Upcoming appointments" });
    // Thursday 10 December in Berlin (ZONE), though Wednesday 9 in UTC.
    expect(ZONE).toBe("Europe/Berlin");
    expect(within(card).getByRole("link", { name: /^Open Consultation/ })).toHaveAttribute("href", `/calendar?date=2026-12-10&appointment=${APPOINTMENT.id}`);
    await user.click(within(card).getByRole("link", { name: /^Open Consultation/ }));
    await waitForPath(pathname, "/calendar");
    expect(await findDialog("Consultation")).toBeInTheDocument();
  });

  it("with none coming up, says how they are booked and links the calendar", async () => {
    const { user, pathname } = await openDashboard(makeDashboard(), true);
    const card = screen.getByRole("region", { name: "Upcoming appointments" });
    expect(within(card).getByText("No upcoming appointments.")).toBeInTheDocument();
    expect(within(card).getByText(/Agents book appointments during calls once “Book appointments during calls” is on/)).toBeInTheDocument();
    expect(within(card).getByText("0 today · 0 in the next 7 days")).toBeInTheDocument();
    await user.click(within(card).getByRole("link", { name: "Open calendar" }));
    await waitForPath(pathname, "/calendar");
  });

  it("is not shown when the server leaves appointments out", async () => {
    const { appointments: _left, ...withoutAppointments } = makeDashboard();
    await openDashboard(withoutAppointments as ReturnType<typeof makeDashboard>);
    expect(screen.queryByRole("region", { name: "Upcoming appointments" })).toBeNull();
  });
});
