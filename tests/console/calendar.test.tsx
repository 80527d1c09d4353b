import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { makeAppointment, OTHER_AGENT_ID, OTHER_APPOINTMENT_ID, queriesTo, serveCalendar, WEEK, WEEK_PATH, ZONE } from "./calendar-fixtures";
import { asPhone, findScreen, installFetchFake, renderConsole, signedInAs } from "./test-utils";

type Options = Parameters<typeof serveCalendar>[1];

async function openCalendar(path = WEEK_PATH, options: Options = {}, role: "org:admin" | "org:member" = "org:admin") {
  const fetch = installFetchFake();
  const server = serveCalendar(fetch, options);
  const rendered = renderConsole({ path, fetch, session: signedInAs(role) });
  await findScreen("Calendar");
  return { ...rendered, server };
}

/** An appointment on the calendar, by its accessible name ("Title, 10:00–10:30, Booked"). */
const eventNamed = (title: string) => screen.findByLabelText(new RegExp(`^${title}, `));
const lastQuery = (fetch: ReturnType<typeof installFetchFake>, path: string) => queriesTo(fetch, path).at(-1);

async function pick(user: ReturnType<typeof renderConsole>["user"], label: string, option: string) {
  await user.click(screen.getByRole("combobox", { name: label }));
  const options = await screen.findAllByTitle(option);
  await user.click(options.at(-1)!);
}

describe("the calendar", () => {
  it("asks for the week shown, in the calendar's zone, and shows its appointments there", async () => {
    const { fetch } = await openCalendar();
    expect(await eventNamed("Consultation")).toHaveAttribute("aria-label", "Consultation, 10:00–10:30, Booked");
    expect(queriesTo(fetch, "/api/appointment/")).toEqual([{ page: "1", limit: "1000", ...WEEK }]);
    await waitFor(() => expect(queriesTo(fetch, "/api/availability/slots")).toEqual([WEEK]));
    expect(queriesTo(fetch, "/api/availability/")).toEqual([{}]);
    expect(screen.getByText(`Times in ${ZONE}.`)).toBeInTheDocument();
    expect(screen.getByRole("heading", { level: 2 })).toHaveTextContent("7 – 13 Dec 2026");
    // The customer is on the appointment, and the legend names its agent's colour.
    expect(within(await eventNamed("Consultation")).getByText("Grace Hopper")).toBeInTheDocument();
    expect(within(screen.getByRole("list", { name: "Agents" })).getByText("Front desk")).toBeInTheDocument();
  });

  it("shows another zone when asked, and asks for the days that zone's week covers in the calendar's zone", async () => {
    const { user, fetch } = await openCalendar();
    await eventNamed("Consultation");
    await user.click(screen.getByRole("combobox", { name: "Time zone" }));
    await user.keyboard("Europe/Berl");
    await user.click(await screen.findByTitle("Europe/Berlin"));

    // 10:00 in New York is 16:00 in Berlin; Berlin's Monday 00:00 is Sunday 18:00 in New York.
    await waitFor(() => expect(screen.getByLabelText(/^Consultation, /)).toHaveAttribute("aria-label", "Consultation, 16:00–16:30, Booked"));
    await waitFor(() => expect(lastQuery(fetch, "/api/appointment/")).toEqual({ page: "1", limit: "1000", startDate: "2026-12-06", endDate: "2026-12-13" }));
    expect(screen.getByText(`Times in Europe/Berlin. The calendar's own zone is ${ZONE}.`)).toBeInTheDocument();
  });

  it("moves by week and switches to the month, each time asking for the days shown", async () => {
    const { user, fetch } = await openCalendar();
    await eventNamed("Consultation");
    await user.click(screen.getByRole("button", { name: "Next period" }));
    await waitFor(() => expect(lastQuery(fetch, "/api/appointment/")).toEqual({ page: "1", limit: "1000", startDate: "2026-12-14", endDate: "2026-12-20" }));
    expect(screen.getByRole("heading", { level: 2 })).toHaveTextContent("14 – 20 Dec 2026");
    await waitFor(() => expect(lastQuery(fetch, "/api/availability/slots")).toEqual({ startDate: "2026-12-14", endDate: "2026-12-20" }));

    await user.click(screen.getByText("Month"));
    // December 2026 in six Monday-first weeks: 30 November to 10 January.
    await waitFor(() => expect(lastQuery(fetch, "/api/appointment/")).toEqual({ page: "1", limit: "1000", startDate: "2026-11-30", endDate: "2027-01-10" }));
    expect(screen.getByRole("heading", { level: 2 })).toHaveTextContent("December 2026");
    expect(await eventNamed("Consultation")).toHaveAttribute("aria-label", "Consultation, 10:00, Booked");
  });

  it("opens on the view and day of its URL", async () => {
    const { fetch } = await openCalendar("/calendar?view=day&date=2026-12-10");
    await waitFor(() => expect(lastQuery(fetch, "/api/appointment/")).toEqual({ page: "1", limit: "1000", startDate: "2026-12-10", endDate: "2026-12-10" }));
    expect(screen.getByRole("heading", { level: 2 })).toHaveTextContent("Thursday, 10 December 2026");
  });

  it("on a phone opens on the day view when its URL names none (a week of columns does not fit)", async () => {
    const restore = asPhone();
    try {
      const { fetch } = await openCalendar("/calendar?date=2026-12-10");
      await waitFor(() => expect(lastQuery(fetch, "/api/appointment/")).toEqual({ page: "1", limit: "1000", startDate: "2026-12-10", endDate: "2026-12-10" }));
      expect(screen.getByRole("heading", { level: 2 })).toHaveTextContent("Thursday, 10 December 2026");
    } finally {
      restore();
    }
  });

  it("filters by agent: its appointments, its free times and its own calendar's rules", async () => {
    const { user, fetch } = await openCalendar();
    await eventNamed("Consultation");
    await pick(user, "Agent", "Sales line");
    await waitFor(() => expect(lastQuery(fetch, "/api/appointment/")).toEqual({ page: "1", limit: "1000", ...WEEK, agentId: OTHER_AGENT_ID }));
    await waitFor(() => expect(lastQuery(fetch, "/api/availability/slots")).toEqual({ ...WEEK, agentId: OTHER_AGENT_ID }));
    expect(lastQuery(fetch, "/api/availability/")).toEqual({ agentId: OTHER_AGENT_ID });
    await waitFor(() => expect(screen.queryByLabelText(/^Consultation, /)).toBeNull());
    expect(screen.getByText("No appointments match these filters in this period.")).toBeInTheDocument();
  });

  it("filters by status and searches", async () => {
    const { user, fetch } = await openCalendar();
    await eventNamed("Consultation");
    await pick(user, "Status", "No-show");
    await waitFor(() => expect(lastQuery(fetch, "/api/appointment/")).toEqual({ page: "1", limit: "1000", ...WEEK, status: "no_show" }));
    await pick(user, "Status", "All statuses");
    await user.type(screen.getByRole("searchbox", { name: "Search appointments" }), "grace");
    await waitFor(() => expect(lastQuery(fetch, "/api/appointment/")).toEqual({ page: "1", limit: "1000", ...WEEK, search: "grace" }));
    expect(await eventNamed("Consultation")).toBeInTheDocument();
  });

  it("leaves cancelled appointments out until asked to show them", async () => {
    const { user } = await openCalendar(WEEK_PATH, {
      appointments: [makeAppointment(), makeAppointment({ id: OTHER_APPOINTMENT_ID, title: "Old visit", status: "cancelled", start: "2026-12-08T15:00:00.000Z", end: "2026-12-08T16:00:00.000Z" })],
    });
    await eventNamed("Consultation");
    expect(screen.queryByLabelText(/^Old visit, /)).toBeNull();
    await user.click(screen.getByRole("checkbox", { name: "Show cancelled" }));
    expect(await eventNamed("Old visit")).toHaveAttribute("aria-label", "Old visit, 10:00–11:00, Cancelled");
  });

  it("says when the period holds more appointments than one answer carries", async () => {
    const many = Array.from({ length: 3 }, (_, index) => makeAppointment({ id: `a9900000-0000-4000-8000-00000000010${index}`, title: `Visit ${index}` }));
    const fetch = installFetchFake();
    serveCalendar(fetch, { appointments: many });
    fetch.on("GET", "/api/appointment/", (request) => new Response(JSON.stringify({ data: many, total: 1500, page: 1, limit: Number(request.query.get("limit")) }), { headers: { "Content-Type": "application/json" } }));
    renderConsole({ path: WEEK_PATH, fetch });
    await screen.findByText(/Showing the first 3 of 1,500 appointments in this period/);
  });
});
