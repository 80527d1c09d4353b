import { screen, waitFor, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { draftForSelection } from "../../src/components/calendar/create-draft";
import { NEW_APPOINTMENT_ID, OTHER_AGENT_ID, serveCalendar, slotTaken, SLOTS, WEEK_PATH, ZONE } from "./calendar-fixtures";
import { findDialog, findScreen, installFetchFake, json, renderConsole, signedInAs } from "./test-utils";

// Wednesday 9 December 2026, 07:00 in New York: the first free slot ahead is 11:00.
const NOW = new Date("2026-12-09T12:00:00.000Z");

async function openCreate(role: "org:admin" | "org:member" = "org:admin") {
  const fetch = installFetchFake();
  const server = serveCalendar(fetch);
  const rendered = renderConsole({ path: WEEK_PATH, fetch, session: signedInAs(role) });
  await findScreen("Calendar");
  await screen.findByLabelText(/^Consultation, /);
  await waitFor(() => expect(fetch.to("GET", "/api/availability/slots")).toHaveLength(1));
  await rendered.user.click(screen.getByRole("button", { name: /New appointment/ }));
  const drawer = await findDialog("New appointment");
  return { ...rendered, server, drawer, field: (name: string) => within(drawer).getByRole("textbox", { name }) };
}

describe("a new appointment", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"], now: NOW });
  });

  it("starts at the first free slot ahead, and posts what was typed with its times as instants", async () => {
    const { user, drawer, field, fetch } = await openCreate("org:member");
    expect(field("Start")).toHaveValue("11:00");
    expect(field("End")).toHaveValue("11:30");
    expect(within(drawer).getByText(`Times are in ${ZONE}.`)).toBeInTheDocument();

    await user.type(field("Title"), "  Haircut ");
    await user.type(field("Customer name"), "Ada Lovelace");
    await user.type(within(drawer).getByRole("textbox", { name: /Phone number/ }), "4155550123");
    await user.type(field("Email"), "ada@example.com");
    await user.type(field("Notes"), "First visit");
    await user.click(within(drawer).getByRole("combobox", { name: "Agent" }));
    await user.click((await screen.findAllByTitle("Sales line")).at(-1)!);
    await user.click(within(drawer).getByRole("button", { name: "Create appointment" }));

    await screen.findByText("Appointment created");
    expect(fetch.to("POST", "/api/appointment/").map((request) => request.body)).toEqual([
      {
        title: "Haircut",
        start: "2026-12-09T16:00:00.000Z",
        end: "2026-12-09T16:30:00.000Z",
        customer_name: "Ada Lovelace",
        customer_number: "+14155550123",
        customer_email: "ada@example.com",
        notes: "First visit",
        agent_id: OTHER_AGENT_ID,
      },
    ]);
    expect(await screen.findByLabelText(/^Haircut, /)).toHaveAttribute("aria-label", "Haircut, 11:00–11:30, Booked");
  });

  it("sends only the fields given, at the typed time", async () => {
    const { user, drawer, field, fetch } = await openCreate();
    await user.type(field("Title"), "Call back");
    await user.clear(field("Start"));
    await user.type(field("Start"), "14:00");
    await user.clear(field("End"));
    await user.type(field("End"), "14:45");
    await user.click(within(drawer).getByRole("button", { name: "Create appointment" }));
    await screen.findByText("Appointment created");
    expect(fetch.to("POST", "/api/appointment/").map((request) => request.body)).toEqual([{ title: "Call back", start: "2026-12-09T19:00:00.000Z", end: "2026-12-09T19:45:00.000Z" }]);
  });

  it("says what is missing or wrong, and sends nothing", async () => {
    const { user, drawer, field, fetch } = await openCreate();
    await user.clear(field("End"));
    await user.type(field("End"), "10:30");
    await user.type(field("Email"), "not-an-email");
    await user.click(within(drawer).getByRole("button", { name: "Create appointment" }));
    // antd re-renders a form's error list as it settles: wait on the text rather than hold an element.
    await waitFor(() => expect(within(drawer).getByText("Give the appointment a title")).toBeInTheDocument());
    expect(within(drawer).getByText("The end must be after the start")).toBeInTheDocument();
    expect(within(drawer).getByText("Enter an email address, e.g. grace@example.com")).toBeInTheDocument();
    expect(fetch.to("POST", "/api/appointment/")).toEqual([]);
  });

  it("when the time is taken, offers the nearest free times, each booking it there", async () => {
    const { user, drawer, field, fetch, server } = await openCreate();
    server.refuse = () => slotTaken([SLOTS[1]!]);
    await user.type(field("Title"), "Haircut");
    await user.click(within(drawer).getByRole("button", { name: "Create appointment" }));
    await within(drawer).findByText("That time is taken: another appointment is booked from 10:00 to 10:30.");

    server.refuse = undefined;
    await user.click(within(drawer).getByRole("button", { name: "Book Wed 9 Dec 2026, 11:30–12:00" }));
    await screen.findByText("Appointment created");
    expect(fetch.to("POST", "/api/appointment/").map((request) => (request.body as { start: string; end: string }))).toEqual([
      expect.objectContaining({ title: "Haircut", start: "2026-12-09T16:00:00.000Z", end: "2026-12-09T16:30:00.000Z" }),
      expect.objectContaining({ title: "Haircut", start: "2026-12-09T16:30:00.000Z", end: "2026-12-09T17:00:00.000Z" }),
    ]);
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "New appointment" })).toBeNull());
    expect(server.appointments.some((appointment) => appointment.id === NEW_APPOINTMENT_ID)).toBe(true);
  });

  it("a refusal that offers other times (a time the rules do not give) offers them too", async () => {
    const { user, drawer, field, server } = await openCreate();
    server.refuse = () => json({ detail: "That day is closed (2026-12-25).", code: "conflict", slots: [SLOTS[2]!] }, 409);
    await user.type(field("Title"), "Haircut");
    await user.click(within(drawer).getByRole("button", { name: "Create appointment" }));
    await within(drawer).findByText("That day is closed (2026-12-25).");
    expect(within(drawer).getByRole("button", { name: "Book Thu 10 Dec 2026, 09:00–09:30" })).toBeInTheDocument();
  });

  it("shows the server's reason for any other refusal", async () => {
    const { user, drawer, field, fetch } = await openCreate();
    fetch.on("POST", "/api/appointment/", () => new Response(JSON.stringify({ detail: "customer_number must be in E.164 form", code: "invalid_body" }), { status: 400, headers: { "Content-Type": "application/json" } }));
    await user.type(field("Title"), "Haircut");
    await user.click(within(drawer).getByRole("button", { name: "Create appointment" }));
    await within(drawer).findByText("customer_number must be in E.164 form");
    expect(within(drawer).getByText("The appointment could not be saved")).toBeInTheDocument();
  });
});

describe("where a click on the calendar starts a new appointment", () => {
  const context = { zone: ZONE, slots: SLOTS, slotMinutes: 30, rowMinutes: 30, agentId: undefined, now: NOW.getTime() };
  const at = (iso: string) => Date.parse(iso);

  it("a click inside a free slot takes that slot", () => {
    expect(draftForSelection({ start: at("2026-12-09T16:30:00Z"), end: at("2026-12-09T17:00:00Z"), allDay: false }, context)).toEqual({ date: "2026-12-09", start: "11:30", end: "12:00", agentId: undefined, outsideFree: false });
  });

  it("a click outside the free slots takes one slot length from there, and says it is outside", () => {
    expect(draftForSelection({ start: at("2026-12-09T22:00:00Z"), end: at("2026-12-09T22:30:00Z"), allDay: false }, { ...context, slotMinutes: 45, agentId: OTHER_AGENT_ID })).toEqual({ date: "2026-12-09", start: "17:00", end: "17:45", agentId: OTHER_AGENT_ID, outsideFree: true });
  });

  it("a drag over several rows takes what was dragged over", () => {
    expect(draftForSelection({ start: at("2026-12-09T16:00:00Z"), end: at("2026-12-09T17:00:00Z"), allDay: false }, context)).toEqual({ date: "2026-12-09", start: "11:00", end: "12:00", agentId: undefined, outsideFree: true });
  });

  it("a day in the month takes its first free slot ahead, else 09:00", () => {
    expect(draftForSelection({ start: at("2026-12-10T05:00:00Z"), end: at("2026-12-11T05:00:00Z"), allDay: true }, context)).toMatchObject({ date: "2026-12-10", start: "09:00", end: "09:30", outsideFree: false });
    expect(draftForSelection({ start: at("2026-12-12T05:00:00Z"), end: at("2026-12-13T05:00:00Z"), allDay: true }, context)).toMatchObject({ date: "2026-12-12", start: "09:00", end: "09:30", outsideFree: true });
  });
});
