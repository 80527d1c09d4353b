import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { makeAvailability, queriesTo, serveCalendar, WEEK, WEEK_PATH } from "./calendar-fixtures";
import { findScreen, installFetchFake, json, renderConsole, signedInAs } from "./test-utils";

describe("the calendar's states", () => {
  it("says it is loading until the calendar's rules arrive", async () => {
    const fetch = installFetchFake();
    serveCalendar(fetch);
    let answer: (response: Response) => void = () => undefined;
    fetch.on("GET", "/api/availability/", () => new Promise<Response>((resolve) => (answer = resolve)));
    renderConsole({ path: WEEK_PATH, fetch });
    await findScreen("Calendar");
    await screen.findByRole("status", { name: "Loading the calendar" });
    expect(fetch.to("GET", "/api/appointment/")).toEqual([]);
    answer(json({ data: makeAvailability() }));
    await screen.findByLabelText(/^Consultation, /);
    expect(screen.queryByRole("status", { name: "Loading the calendar" })).toBeNull();
  });

  it("while the period's appointments load, says so over the calendar and clears it when they arrive", async () => {
    const fetch = installFetchFake();
    const server = serveCalendar(fetch);
    let answer: (response: Response) => void = () => undefined;
    fetch.on("GET", "/api/appointment/", (request) =>
      request.query.get("limit") === "1"
        ? json({ data: server.appointments.slice(0, 1), total: 1, page: 1, limit: 1 })
        : new Promise<Response>((resolve) => (answer = resolve)),
    );
    renderConsole({ path: WEEK_PATH, fetch });
    await findScreen("Calendar");
    // Past the first load of the calendar's rules (its own skeleton), the note sits over the calendar itself.
    await waitFor(() => expect(screen.getByRole("status", { name: "Loading the calendar" }).closest(".cal-screen__calendar")).not.toBeNull());
    answer(json({ data: server.appointments, total: server.appointments.length, page: 1, limit: 1000 }));
    await screen.findByLabelText(/^Consultation, /);
    await waitFor(() => expect(screen.queryByRole("status", { name: "Loading the calendar" })).toBeNull());
  });

  it("with no appointment at all, says how agents book and how to add one", async () => {
    const fetch = installFetchFake();
    serveCalendar(fetch, { appointments: [] });
    const { user } = renderConsole({ path: WEEK_PATH, fetch, session: signedInAs("org:member") });
    const panel = (await screen.findByText("No appointments yet")).closest(".cal-empty") as HTMLElement;
    expect(within(panel).getByText(/Agents book appointments during calls once “Book appointments during calls” is on/)).toBeInTheDocument();
    expect(within(panel).getByRole("link", { name: "Agent settings" })).toHaveAttribute("href", "/agent/new");
    expect(within(panel).getByText(/click a free time in the week or day view, or use New appointment/)).toBeInTheDocument();
    // Whether there is any appointment at all: one small question, without the period's filters.
    expect(queriesTo(fetch, "/api/appointment/")).toEqual([{ page: "1", limit: "1000", ...WEEK }, { page: "1", limit: "1" }]);
    await user.click(within(panel).getByRole("button", { name: "New appointment" }));
    await screen.findByRole("button", { name: "Create appointment" });
  });

  it("an organisation with appointments elsewhere gets no first-run panel for an empty week", async () => {
    const fetch = installFetchFake();
    const server = serveCalendar(fetch);
    fetch.on("GET", "/api/appointment/", (request) =>
      json({ data: request.query.get("limit") === "1" ? server.appointments : [], total: request.query.get("limit") === "1" ? 1 : 0, page: 1, limit: Number(request.query.get("limit")) }),
    );
    renderConsole({ path: WEEK_PATH, fetch });
    await findScreen("Calendar");
    await waitFor(() => expect(queriesTo(fetch, "/api/appointment/")).toHaveLength(2));
    expect(screen.queryByText("No appointments yet")).toBeNull();
  });

  it("when the appointments cannot be loaded, says so with the server's reason and retries", async () => {
    const fetch = installFetchFake();
    serveCalendar(fetch);
    const failing = () => json({ detail: "The database is busy, try again.", code: "unavailable" }, 503);
    fetch.on("GET", "/api/appointment/", failing);
    const { user } = renderConsole({ path: WEEK_PATH, fetch });
    await screen.findByText("The appointments could not be loaded");
    expect(screen.getByText("The database is busy, try again.")).toBeInTheDocument();
    expect(screen.queryByText("No appointments yet")).toBeNull();

    serveCalendar(fetch);
    await user.click(screen.getByRole("button", { name: "Retry" }));
    await screen.findByLabelText(/^Consultation, /);
    await waitFor(() => expect(screen.queryByText("The appointments could not be loaded")).toBeNull());
  });

  it("when the calendar's rules cannot be loaded, shows the calendar in the browser's zone and offers a retry", async () => {
    const fetch = installFetchFake();
    serveCalendar(fetch);
    fetch.on("GET", "/api/availability/", () => json({ detail: "Something went wrong on our side.", code: "internal" }, 500));
    const { user } = renderConsole({ path: WEEK_PATH, fetch });
    await screen.findByText("The calendar's availability could not be loaded");
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    await screen.findByText(`Times in ${zone}.`);
    await screen.findByLabelText(/^Consultation, /);

    serveCalendar(fetch);
    await user.click(screen.getByRole("button", { name: "Retry" }));
    await screen.findByText("Times in America/New_York.");
  });
});
