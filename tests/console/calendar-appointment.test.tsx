import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { APPOINTMENT_ID, CALL_ID, serveCalendar, slotTaken, WEEK_PATH } from "./calendar-fixtures";
import { findDialog, findScreen, installFetchFake, renderConsole, signedInAs } from "./test-utils";

async function openAppointment(role: "org:admin" | "org:member" = "org:admin") {
  const fetch = installFetchFake();
  const server = serveCalendar(fetch);
  const rendered = renderConsole({ path: WEEK_PATH, fetch, session: signedInAs(role) });
  await findScreen("Calendar");
  await rendered.user.click(await screen.findByLabelText(/^Consultation, /));
  const drawer = await findDialog("Consultation");
  await within(drawer).findByText("Grace Hopper");
  return { ...rendered, server, drawer };
}

const eventLabel = () => screen.getByLabelText(/^Consultation, /).getAttribute("aria-label");

describe("an appointment's drawer", () => {
  it("shows the customer, the agent, where it came from, the call that booked it and when it was made", async () => {
    const { drawer } = await openAppointment();
    expect(within(drawer).getByText("Booked")).toBeInTheDocument();
    expect(within(drawer).getByText("Wed 9 Dec 2026, 10:00–10:30")).toBeInTheDocument();
    expect(within(drawer).getByRole("link", { name: "+1 (415) 555-0100" })).toHaveAttribute("href", "tel:+14155550100");
    expect(within(drawer).getByRole("link", { name: "grace@example.com" })).toHaveAttribute("href", "mailto:grace@example.com");
    expect(within(drawer).getByText("Front desk")).toBeInTheDocument();
    expect(within(drawer).getByText("Agent (during a call)")).toBeInTheDocument();
    expect(within(drawer).getByRole("link", { name: "Open the call" })).toHaveAttribute("href", `/call-logs?call=${CALL_ID}`);
    expect(within(drawer).getByText("Tue 1 Dec 2026, 09:00")).toBeInTheDocument();
    expect(within(drawer).getByText("Wed 2 Dec 2026, 10:30")).toBeInTheDocument();
    expect(within(drawer).getByRole("textbox", { name: "Notes" })).toHaveValue("Prefers mornings");
  });

  it("in the week, a half-hour appointment shows its title first and its start, the whole in its tooltip", async () => {
    const fetch = installFetchFake();
    serveCalendar(fetch);
    renderConsole({ path: WEEK_PATH, fetch });
    await findScreen("Calendar");
    const event = await screen.findByLabelText(/^Consultation, /);
    // A one-line event about 150 px wide at 1440 px: "Consultation 10:00", not "10:00–10:30 Consulta…".
    expect([...event.querySelectorAll(".cal-event__text > span")].map((part) => part.textContent)).toEqual(["Consultation", "10:00", "Grace Hopper"]);
    expect(event).toHaveAttribute("title", "Consultation, 10:00–10:30, Booked");
  });

  it("is opened by its URL, so a link to it works", async () => {
    const fetch = installFetchFake();
    serveCalendar(fetch);
    renderConsole({ path: `/calendar?date=2026-12-09&appointment=${APPOINTMENT_ID}`, fetch });
    const drawer = await findDialog("Consultation");
    await within(drawer).findByText("Grace Hopper");
  });

  it("marks it completed or a no-show with PUT {status}", async () => {
    const { user, drawer, fetch } = await openAppointment("org:member");
    await user.click(within(drawer).getByRole("button", { name: "Completed" }));
    await screen.findByText("Marked completed");
    expect(fetch.to("PUT", `/api/appointment/${APPOINTMENT_ID}`).map((request) => request.body)).toEqual([{ status: "completed" }]);
    await waitFor(() => expect(within(drawer).getByText("Completed", { selector: ".ant-tag" })).toBeInTheDocument());
    // A completed appointment no longer moves: no reschedule, and back to booked is offered.
    expect(within(drawer).queryByRole("region", { name: "Reschedule" })).toBeNull();
    await user.click(within(drawer).getByRole("button", { name: "No-show" }));
    await waitFor(() => expect(fetch.to("PUT", `/api/appointment/${APPOINTMENT_ID}`).map((request) => request.body)).toEqual([{ status: "completed" }, { status: "no_show" }]));
    await waitFor(() => expect(eventLabel()).toBe("Consultation, 10:00–10:30, No-show"));
  });

  it("cancels only after asking, with DELETE, and the time is free again", async () => {
    const { user, drawer, fetch } = await openAppointment("org:member");
    await user.click(within(drawer).getByRole("button", { name: "Cancel appointment" }));
    let dialog = await findDialog("Cancel this appointment?");
    expect(within(dialog).getByText(/"Consultation" is cancelled and its time becomes free again/)).toBeInTheDocument();
    await user.click(within(dialog).getByRole("button", { name: "Keep it" }));
    await waitFor(() => expect(screen.queryByText("Cancel this appointment?")).toBeNull());
    expect(fetch.to("DELETE", `/api/appointment/${APPOINTMENT_ID}`)).toEqual([]);

    const slotQueries = fetch.to("GET", "/api/availability/slots").length;
    await user.click(within(drawer).getByRole("button", { name: "Cancel appointment" }));
    dialog = await findDialog("Cancel this appointment?");
    await user.click(within(dialog).getByRole("button", { name: "Cancel appointment" }));
    await screen.findByText("Appointment cancelled");
    expect(fetch.to("DELETE", `/api/appointment/${APPOINTMENT_ID}`)).toHaveLength(1);
    await within(drawer).findByText("Cancelled appointments cannot be changed.");
    // Gone from the calendar (cancelled ones are hidden), and the free times asked again.
    await waitFor(() => expect(screen.queryByLabelText(/^Consultation, /)).toBeNull());
    await waitFor(() => expect(fetch.to("GET", "/api/availability/slots").length).toBeGreaterThan(slotQueries));
  });

  it("saves its notes", async () => {
    const { user, drawer, fetch } = await openAppointment();
    const notes = within(drawer).getByRole("textbox", { name: "Notes" });
    await user.clear(notes);
    await user.type(notes, "Bring the contract");
    await user.click(within(drawer).getByRole("button", { name: "Save notes" }));
    await screen.findByText("Notes saved");
    expect(fetch.to("PUT", `/api/appointment/${APPOINTMENT_ID}`).map((request) => request.body)).toEqual([{ notes: "Bring the contract" }]);
  });

  it("reschedules to a typed time on the calendar's wall clock", async () => {
    const { user, drawer, fetch } = await openAppointment();
    const form = within(within(drawer).getByRole("region", { name: "Reschedule" }));
    await user.clear(form.getByRole("textbox", { name: "Start" }));
    await user.type(form.getByRole("textbox", { name: "Start" }), "14:00");
    await user.clear(form.getByRole("textbox", { name: "End" }));
    await user.type(form.getByRole("textbox", { name: "End" }), "14:45");
    await user.click(form.getByRole("button", { name: "Move" }));
    await screen.findByText("Appointment moved to Wed 9 Dec 2026, 14:00–14:45");
    expect(fetch.to("PUT", `/api/appointment/${APPOINTMENT_ID}`).map((request) => request.body)).toEqual([{ start: "2026-12-09T19:00:00.000Z", end: "2026-12-09T19:45:00.000Z" }]);
    await waitFor(() => expect(eventLabel()).toBe("Consultation, 14:00–14:45, Booked"));
  });

  it("when the new time is taken, keeps the old one and offers the nearest free times, each moving it there", async () => {
    const { user, drawer, fetch, server } = await openAppointment();
    server.refuse = () => slotTaken();
    const form = within(within(drawer).getByRole("region", { name: "Reschedule" }));
    await user.clear(form.getByRole("textbox", { name: "Start" }));
    await user.type(form.getByRole("textbox", { name: "Start" }), "12:00");
    await user.clear(form.getByRole("textbox", { name: "End" }));
    await user.type(form.getByRole("textbox", { name: "End" }), "12:30");
    await user.click(form.getByRole("button", { name: "Move" }));

    const dialog = await findDialog("That time is taken");
    expect(within(dialog).getByText("That time is taken: another appointment is booked from 10:00 to 10:30.")).toBeInTheDocument();
    expect(within(dialog).getAllByRole("button").map((button) => button.textContent)).toEqual(
      expect.arrayContaining(["Move to Wed 9 Dec 2026, 11:00–11:30", "Move to Wed 9 Dec 2026, 11:30–12:00", "Keep the old time"]),
    );
    expect(eventLabel()).toBe("Consultation, 10:00–10:30, Booked");

    server.refuse = undefined;
    await user.click(within(dialog).getByRole("button", { name: "Move to Wed 9 Dec 2026, 11:30–12:00" }));
    await screen.findByText("Appointment moved to Wed 9 Dec 2026, 11:30–12:00");
    expect(fetch.to("PUT", `/api/appointment/${APPOINTMENT_ID}`).map((request) => request.body)).toEqual([
      { start: "2026-12-09T17:00:00.000Z", end: "2026-12-09T17:30:00.000Z" },
      { start: "2026-12-09T16:30:00.000Z", end: "2026-12-09T17:00:00.000Z" },
    ]);
    await waitFor(() => expect(screen.queryByText("That time is taken")).toBeNull());
    await waitFor(() => expect(eventLabel()).toBe("Consultation, 11:30–12:00, Booked"));
  });
});
