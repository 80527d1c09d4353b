/**
 * POST /order/import: a spreadsheet's CSV (BOM, quoted cells, CRLF, "Phone Number" headers), the items
 * cell, the consent columns, bad numbers and other invalid rows reported by row, duplicates in the
 * file, re-imports updating instead of duplicating, JSON imports, files that cannot be read (400,
 * nothing imported), and 10,000 rows in a few seconds with their follow-up planned.
 */
import { and, count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Order } from "../../contract/order";
import type { Database } from "../../server/db/client";
import { campaignContacts, orders } from "../../server/db/schema";
import { parseItemsCell } from "../../server/orders/import";
import { uploadCsv } from "./campaigns-fixtures";
import { buildTestApp, migratedDatabase } from "./helpers";
import { contactOf, ordersWorld, request, saveFollowUp, zoneAtLocalHour, type OrdersWorld } from "./orders-fixtures";

let database: Database;
let world: OrdersWorld;

beforeAll(async () => {
  database = await migratedDatabase();
  const { app } = await buildTestApp(database);
  world = await ordersWorld(app, "Import Co");
});
afterAll(async () => {
  await world.app.close();
  await database.close();
});

interface Report {
  accepted: number;
  updated: number;
  duplicates: number;
  no_consent: number;
  invalid: { row: number; reason: string }[];
  invalid_count: number;
}

async function importCsv(csv: string, token = world.memberToken, into = world): Promise<Report> {
  const response = await uploadCsv(into.app, token, "/order/import", csv);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { data: Report }).data;
}

async function byReference(reference: string, orgId = world.orgId) {
  return (await database.db.select().from(orders).where(and(eq(orders.orgId, orgId), eq(orders.reference, reference))))[0];
}

describe("the items cell", () => {
  it('"Blue mug x2 12.00; Tote bag x1 35.90": name, quantity, unit price in minor units', () => {
    expect(parseItemsCell("Blue mug x2 12.00; Tote bag x1 35.90", "USD")).toEqual({
      items: [
        { name: "Blue mug", quantity: 2, price_minor: 1200 },
        { name: "Tote bag", quantity: 1, price_minor: 3590 },
      ],
    });
    expect(parseItemsCell("iPhone 15 case × 3; Gift card", "USD")).toEqual({
      items: [
        { name: "iPhone 15 case", quantity: 3, price_minor: 0 },
        { name: "Gift card", quantity: 1, price_minor: 0 },
      ],
    });
    expect(parseItemsCell("Tea x1 1200", "JPY")).toEqual({ items: [{ name: "Tea", quantity: 1, price_minor: 1200 }] });
    expect(parseItemsCell("Tea x1 12.5", "JPY")).toEqual({ problem: expect.stringMatching(/more decimals than JPY/) });
    expect(parseItemsCell("", "USD")).toEqual({ items: [] });
  });
});

describe("CSV", () => {
  it("a spreadsheet's file: BOM, CRLF, quoted cells with commas and quotes, 'Phone Number' and 'Order ID' headers, consent columns", async () => {
    const csv =
      "\uFEFFOrder ID,Customer Name,Phone Number,Email,Items,Total,Currency,Checkout URL,Abandoned At,call_consent,call_consent_source,call_consent_at\r\n" +
      `IMP-1,"Hopper, Grace",+1 (415) 555-0101,grace@example.com,"Blue mug x2 12.00; Tote bag x1 35.90",59.90,usd,https://shop.example.com/c/1,2026-11-27T10:00:00Z,yes,"checkout ""call me"" box",2026-11-27T09:59:00Z\r\n` +
      `IMP-2,Alan Turing,+442071234567,,,10,GBP,,,no,newsletter,\r\n` +
      "\r\n" +
      `IMP-3,Ada,4155550,,,,,,,,,\r\n` +
      `IMP-1,Dup,+14155550102,,,1,,,,yes,,\r\n` +
      `IMP-4,Bad Mail,+14155550104,not-an-email,,1,,,,yes,,\r\n` +
      `IMP-5,Bad Zone?,+14155550105,,,1,,,,yes,,,extra\r\n` +
      `IMP-6,Bad price,+14155550106,,Mug x1 1.234,,,,,yes,,\r\n` +
      `,No reference,+14155550107,,,1,,,,yes,,\r\n`;
    const report = await importCsv(csv);
    expect(report).toEqual({
      accepted: 2,
      updated: 0,
      duplicates: 1,
      no_consent: 1,
      invalid: [
        { row: 3, reason: expect.stringMatching(/^customer_number "4155550" is not a phone number in E.164 form/) },
        { row: 5, reason: expect.stringMatching(/^email/) },
        { row: 6, reason: expect.stringMatching(/13 cells but the header has 12 columns/) },
        { row: 7, reason: expect.stringMatching(/^items: the price of "Mug"/) },
        { row: 8, reason: "reference is missing" },
      ],
      invalid_count: 5,
    });
    const first = (await byReference("IMP-1"))!;
    expect(first).toMatchObject({
      source: "csv",
      customerName: "Hopper, Grace",
      customerNumber: "+14155550101",
      totalMinor: 5990,
      currency: "USD",
      items: [
        { name: "Blue mug", quantity: 2, price_minor: 1200 },
        { name: "Tote bag", quantity: 1, price_minor: 3590 },
      ],
      consentGiven: true,
      consentSource: 'checkout "call me" box',
      status: "open",
    });
    expect(first.consentAt!.toISOString()).toBe("2026-11-27T09:59:00.000Z");
    expect(first.abandonedAt.toISOString()).toBe("2026-11-27T10:00:00.000Z");
    expect(await byReference("IMP-2")).toMatchObject({ status: "no_consent", consentGiven: false, consentSource: "newsletter", totalMinor: 1000, currency: "GBP" });
    const list = (await request(world, "GET", "/order/?search=IMP-1", world.memberToken)).json() as { data: Order[] };
    expect(list.data[0]).toMatchObject({ reference: "IMP-1", total: 59.9, call_consent: { given: true, source: 'checkout "call me" box', at: "2026-11-27T09:59:00.000Z" } });
  });

  it("importing a known reference again updates that order (never a second one) and plans its follow-up", async () => {
    await saveFollowUp(world);
    const now = new Date().toISOString();
    const zone = zoneAtLocalHour();
    expect(await importCsv(`reference,number,total,call_consent,abandoned_at,timezone\nUPD-1,+14155550111,5,no,${now},${zone}\n`)).toMatchObject({ accepted: 1, no_consent: 1 });
    const report = await importCsv(`reference,number,total,call_consent,abandoned_at,timezone\nUPD-1,+14155550111,7.5,yes,${now},${zone}\n`);
    expect(report).toMatchObject({ accepted: 0, updated: 1, no_consent: 0 });
    const rows = await database.db.select({ n: count() }).from(orders).where(and(eq(orders.orgId, world.orgId), eq(orders.reference, "UPD-1")));
    expect(rows[0]!.n).toBe(1);
    const order = (await byReference("UPD-1"))!;
    expect(order).toMatchObject({ totalMinor: 750, consentGiven: true, status: "open" });
    expect((await contactOf(database.db, order.id))!.status).toBe("queued");
  });

  it("a file that cannot be read is 400 and imports nothing", async () => {
    for (const [csv, detail] of [
      ["name,total\nx,1\n", /no reference column/],
      ["reference,total\nx,1\n", /no customer_number column/],
      ['reference,number\n"R-1,+14155550100\n', /not well-formed/],
      ["reference,number\n", /no orders/],
      ["", /empty/],
    ] as const) {
      const response = await uploadCsv(world.app, world.memberToken, "/order/import", csv);
      expect(response.statusCode, csv).toBe(400);
      expect((response.json() as { detail: string }).detail).toMatch(detail);
    }
  });
});

describe("JSON", () => {
  it("{orders: [POST /order/ bodies]}: invalid elements reported by row, the rest imported", async () => {
    const response = await request(world, "POST", "/order/import", world.memberToken, {
      orders: [
        { reference: "J-1", customer_number: "+14155550121", total: 12.5, call_consent: { given: true, source: "form" } },
        { reference: "J-2", customer_number: "nope", total: 1 },
        { reference: "J-3", customer_number: "+14155550123", total: 1, currency: "JPY", items: [{ name: "Tea", quantity: 1, price: 1.5 }] },
      ],
    });
    expect(response.statusCode, response.body).toBe(200);
    expect((response.json() as { data: Report }).data).toMatchObject({
      accepted: 1,
      invalid: [
        { row: 2, reason: expect.stringMatching(/customer_number/) },
        { row: 3, reason: expect.stringMatching(/items\.0\.price|more decimals/) },
      ],
    });
    expect(await byReference("J-1")).toMatchObject({ totalMinor: 1250, consentGiven: true, consentSource: "form" });
  });
});

describe("performance", () => {
  it("10,000 rows with consent, follow-up on: in the database, each queued, in a few seconds (the figure is printed)", async () => {
    const big = await ordersWorld(world.app, "Big Shop");
    await saveFollowUp(big);
    const now = new Date().toISOString();
    const lines = ["reference,customer_name,phone,email,items,total,abandoned_at,call_consent,call_consent_source"];
    const areas = ["212", "312", "415", "650", "646"];
    for (let i = 0; i < 10_000; i++) {
      lines.push(`B-${i},"Person ${i}",+1${areas[i % areas.length]}${String(2_000_000 + i)},p${i}@example.com,"Mug x${1 + (i % 3)} 12.00; Bag x1 35.90",${(12 * (1 + (i % 3)) + 35.9).toFixed(2)},${now},yes,checkout`);
    }
    const csv = lines.join("\r\n");
    const started = performance.now();
    const report = await importCsv(csv, big.memberToken, big);
    const ms = performance.now() - started;
    console.log(`order import: 10,000 rows (${(csv.length / 1024 / 1024).toFixed(2)} MB) in ${ms.toFixed(0)} ms on ${database.kind}`);
    expect(report).toMatchObject({ accepted: 10_000, updated: 0, duplicates: 0, invalid_count: 0 });
    const [queued] = await database.db.select({ n: count() }).from(campaignContacts).where(and(eq(campaignContacts.orgId, big.orgId), eq(campaignContacts.status, "queued")));
    expect(queued!.n).toBe(10_000);
    // A few seconds; the bound leaves room for a busy test machine.
    expect(ms).toBeLessThan(15_000);
  });
});
