/**
 * The demo organisation's calendar (server/seed/demo-appointments.ts): a new user sees appointments in
 * the coming week (some booked by the Appointment Setter and linked to its calls, some from the console),
 * one completed in the past, none overlapping, on the default rules; the same seed gives the same rows.
 */
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Appointment, Availability } from "../../contract/calendar";
import type { CallDetail } from "../../contract/call";
import type { Database } from "../../server/db/client";
import { organizations } from "../../server/db/schema";
import { seedDemo } from "../../server/seed/demo";
import { generateDemoAppointments } from "../../server/seed/demo-appointments";
import { generateDemoData } from "../../server/seed/demo-calls";
import { api } from "./calendar-fixtures";
import { buildTestApp, migratedDatabase, signIn, testConfig } from "./helpers";

const NOW = new Date("2026-06-15T18:00:00.000Z"); // a Monday
const DAY = 86_400_000;

let database: Database;
let app: FastifyInstance;
let token: string;

beforeAll(async () => {
  database = await migratedDatabase();
  const config = testConfig({ SEED_DEMO: "true" });
  expect(await seedDemo(database.db, config, { now: NOW })).not.toBeNull();
  ({ app } = await buildTestApp(database, { SEED_DEMO: "true" }));
  token = await signIn(app, config.demoEmail, config.demoPassword);
}, 60_000);
afterAll(async () => {
  await app?.close();
  await database?.close();
});

async function list(query: string): Promise<Appointment[]> {
  const response = await api(app, token, "GET", `/appointment/?limit=1000&${query}`);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { data: Appointment[] }).data;
}

describe("the demo calendar", () => {
  it("shows booked appointments in the coming week: the agent's, linked to their calls, and the console's", async () => {
    const week = await list("startDate=2026-06-15&endDate=2026-06-23&status=booked");
    const byAgent = week.filter((appointment) => appointment.source === "agent");
    const byConsole = week.filter((appointment) => appointment.source === "console");
    expect(byAgent.length).toBeGreaterThanOrEqual(2);
    expect(byConsole).toHaveLength(2);
    for (const appointment of week) {
      expect(Date.parse(appointment.start)).toBeGreaterThan(NOW.getTime());
      expect(Date.parse(appointment.start)).toBeLessThan(NOW.getTime() + 8 * DAY);
      expect(appointment.outside_hours).toBe(false);
    }
    for (const appointment of byAgent) {
      expect(appointment).toMatchObject({ agent_name: "Appointment Setter", call_id: expect.any(String), customer_name: expect.any(String) });
      const call = await api(app, token, "GET", `/call/${appointment.call_id}`);
      expect((call.json() as { data: CallDetail }).data.appointment_ids).toContain(appointment.id);
    }
  });

  it("has one completed appointment in the past, and no two appointments overlap", async () => {
    const all = await list("");
    const completed = all.filter((appointment) => appointment.status === "completed");
    expect(completed).toHaveLength(1);
    expect(Date.parse(completed[0]!.end)).toBeLessThan(NOW.getTime());
    const sorted = [...all].sort((a, b) => Date.parse(a.start) - Date.parse(b.start));
    sorted.forEach((appointment, index) => {
      if (index > 0) expect(Date.parse(appointment.start)).toBeGreaterThanOrEqual(Date.parse(sorted[index - 1]!.end));
    });
  });

  it("keeps the default rules (not saved) in the organisation's zone", async () => {
    const response = await api(app, token, "GET", "/availability/");
    expect((response.json() as { data: Availability }).data).toMatchObject({ is_default: true, timezone: "UTC", slot_minutes: 30 });
  });

  it("is the same for the same data, organisation and now", async () => {
    const [org] = await database.db.select().from(organizations);
    const data = generateDemoData({ orgId: org!.id, createdBy: "demo", now: NOW, startingCreditMicros: 5_000_000 });
    const first = generateDemoAppointments(data, { orgId: org!.id, createdBy: "demo", now: NOW });
    const second = generateDemoAppointments(data, { orgId: org!.id, createdBy: "demo", now: NOW });
    expect(second).toEqual(first);
    expect(first.appointments.length).toBeGreaterThanOrEqual(5);
  });
});
