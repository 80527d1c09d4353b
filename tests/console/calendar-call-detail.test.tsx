import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { Call } from "../../contract/call";
import { APPOINTMENT_ID, makeAppointment, OTHER_APPOINTMENT_ID, serveCalendar } from "./calendar-fixtures";
import { CALL_ID, makeCall, serveCalls } from "./call-logs-fixtures";
import { findDialog, findScreen, installFetchFake, json, renderConsole, waitForPath } from "./test-utils";

async function openCall(call: Call & { appointment_ids?: string[] }, setup: (fetch: ReturnType<typeof installFetchFake>) => void = () => undefined) {
  const fetch = installFetchFake();
  serveCalendar(fetch, { appointments: [makeAppointment(), makeAppointment({ id: OTHER_APPOINTMENT_ID, title: "Follow-up", status: "cancelled", start: "2026-12-16T15:00:00.000Z", end: "2026-12-16T16:00:00.000Z" })] });
  serveCalls(fetch, [call]);
  setup(fetch);
  const rendered = renderConsole({ path: `/call-logs?call=${CALL_ID}`, fetch });
  await findScreen("Call Logs");
  const drawer = await findDialog("Call details");
  return { ...rendered, drawer };
}

describe("a call's appointments", () => {
  it("lists what the call booked, with time, title and status, each opening the calendar on its day", async () => {
    const { user, drawer, pathname } = await openCall({ ...makeCall(), appointment_ids: [APPOINTMENT_ID, OTHER_APPOINTMENT_ID] });
    const section = await within(drawer).findByRole("region", { name: "Appointments booked on this call" });
    const first = (await within(section).findByRole("link", { name: "Open Consultation in the calendar" })).closest("li")!;
    expect(within(first).getByText("Wed 9 Dec 2026, 10:00–10:30 (America/New_York)")).toBeInTheDocument();
    expect(within(first).getByText("Booked")).toBeInTheDocument();
    expect(within(first).getByRole("link")).toHaveAttribute("href", `/calendar?date=2026-12-09&appointment=${APPOINTMENT_ID}`);
    const second = within(section).getByRole("link", { name: "Open Follow-up in the calendar" }).closest("li")!;
    expect(within(second).getByText("Cancelled")).toBeInTheDocument();

    await user.click(within(first).getByRole("link"));
    await waitForPath(pathname, "/calendar");
    // The call's drawer lists "Consultation" too: once it has gone with Call Logs, the dialog is the calendar's.
    await waitFor(() => expect(screen.queryByRole("region", { name: "Appointments booked on this call" })).toBeNull());
    expect(await findDialog("Consultation")).toBeInTheDocument();
  });

  it("is left out for a call that booked nothing", async () => {
    const { drawer } = await openCall({ ...makeCall(), appointment_ids: [] });
    await within(drawer).findByRole("region", { name: "Summary" });
    expect(within(drawer).queryByRole("region", { name: "Appointments booked on this call" })).toBeNull();
  });

  it("still links each appointment when they cannot be read", async () => {
    const { drawer } = await openCall({ ...makeCall(), appointment_ids: [APPOINTMENT_ID] }, (fetch) =>
      fetch.on("GET", `/api/appointment/${APPOINTMENT_ID}`, () => json({ detail: "Something went wrong on our side.", code: "internal" }, 500)),
    );
    const section = await within(drawer).findByRole("region", { name: "Appointments booked on this call" });
    await within(section).findByText("The appointments could not be loaded");
    expect(within(section).getByRole("link", { name: `Open appointment ${APPOINTMENT_ID} in the calendar` })).toHaveAttribute("href", `/calendar?appointment=${APPOINTMENT_ID}`);
    expect(screen.getByText("Something went wrong on our side.")).toBeInTheDocument();
  });
});
