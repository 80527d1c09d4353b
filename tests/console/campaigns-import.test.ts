import { describe, expect, it } from "vitest";
import { contactsOf, guessMapping, inChunks, invalidRowsCsv, mergeReports, variableColumns } from "../../src/components/campaigns/campaign-form/contact-import";
import { formatDays, formatRelative, progressOf } from "../../src/components/campaigns/campaign-format";
import { parseCsv, toCsv } from "../../src/lib/csv";
import { makeCounts, makeReport } from "./campaigns-fixtures";

describe("reading a contact file", () => {
  it("reads quoted cells, doubled quotes, newlines inside quotes, a BOM, CRLF and blank lines", () => {
    const csv = parseCsv('\uFEFFnumber,name,notes\r\n+14155550100,"Hopper, Grace","said ""call later""\nafter 5"\r\n\r\n+14155550101,Ada\r\n');
    expect(csv.header).toEqual(["number", "name", "notes"]);
    expect(csv.rows).toEqual([
      ["+14155550100", "Hopper, Grace", 'said "call later"\nafter 5'],
      ["+14155550101", "Ada", ""],
    ]);
  });

  it("takes the semicolons or tabs some spreadsheets write", () => {
    expect(parseCsv("phone;name\n+441;Ada\n").rows).toEqual([["+441", "Ada"]]);
    expect(parseCsv("phone\tname\n+441\tAda").rows).toEqual([["+441", "Ada"]]);
  });

  it("guesses the number, name and time-zone columns from their headers; the rest are variables", () => {
    const header = ["Mobile", "Full_Name", "TZ", "plan", ""];
    const mapping = guessMapping(header);
    expect(mapping).toEqual({ number: 0, name: 1, timezone: 2, skipped: [4] });
    expect(variableColumns(header, mapping)).toEqual([3]);
    // As the server reads them: a spreadsheet's "Phone Number" and "Time Zone" headers.
    expect(guessMapping(["Name", "Phone Number", "Time Zone", "plan"])).toEqual({ number: 1, name: 0, timezone: 2, skipped: [] });
  });

  it("makes each row a contact, empty name and zone as null, unticked columns left out", () => {
    const csv = parseCsv("phone,who,tz,plan,city\n +14155550100 ,,, Gold ,Paris\n");
    const contacts = contactsOf(csv, { number: 0, name: 1, timezone: 2, skipped: [4] });
    expect(contacts).toEqual([{ number: "+14155550100", name: null, timezone: null, variables: { plan: "Gold" } }]);
    expect(contactsOf(csv, { number: 0, name: null, timezone: null, skipped: [1, 2, 3, 4] })).toEqual([{ number: "+14155550100" }]);
  });

  it("sends a long file in JSON imports of at most 10,000 rows and adds their reports up", () => {
    expect(inChunks(Array.from({ length: 30_001 }, (_, index) => index)).map((chunk) => chunk.length)).toEqual([10_000, 10_000, 10_000, 1]);
    const merged = mergeReports([
      { report: makeReport({ accepted: 9_999, invalid: [{ row: 7, reason: "bad" }], invalid_count: 1, variables: ["plan"], total_contacts: 9_999 }), offset: 0 },
      { report: makeReport({ accepted: 9_998, duplicates: 1, dnc: 1, invalid: [{ row: 3, reason: "worse" }], invalid_count: 1, needs_timezone: 4, variables: ["plan", "city"], total_contacts: 19_997 }), offset: 10_000 },
    ]);
    expect(merged).toEqual({
      accepted: 19_997,
      duplicates: 1,
      dnc: 1,
      invalid: [
        { row: 7, reason: "bad" },
        { row: 10_003, reason: "worse" },
      ],
      invalid_count: 2,
      needs_timezone: 4,
      variables: ["plan", "city"],
      total_contacts: 19_997,
    });
  });

  it("writes the invalid rows as the file had them, quoting what needs it", () => {
    const csv = parseCsv('number,name\n12,"Hopper, Grace"\n+14155550101,Ada\n');
    expect(invalidRowsCsv(makeReport({ invalid: [{ row: 1, reason: 'too short: "12"' }] }), csv)).toBe('row,reason,number,name\r\n1,"too short: ""12""",12,"Hopper, Grace"\r\n');
    expect(toCsv([[" padded ", null, 3]])).toBe('" padded ",,3\r\n');
  });
});

describe("how a campaign reads", () => {
  it("weekdays as ranges", () => {
    expect(formatDays(["mon", "tue", "wed", "thu", "fri"])).toBe("Mon–Fri");
    expect(formatDays(["sun", "mon", "wed", "fri"])).toBe("Mon, Wed, Fri, Sun");
    expect(formatDays(["mon", "tue", "thu", "fri", "sat"])).toBe("Mon, Tue, Thu–Sat");
    expect(formatDays(["mon", "tue", "wed", "thu", "fri", "sat", "sun"])).toBe("Every day");
  });

  it("progress is the finished contacts' share; a relative time rounds to its largest unit", () => {
    expect(progressOf(makeCounts({ answered: 3, busy: 1, queued: 4, needs_timezone: 2 }))).toBe(0.4);
    expect(progressOf(makeCounts())).toBe(0);
    const now = Date.parse("2026-03-05T09:00:00Z");
    expect(formatRelative("2026-03-05T11:10:00Z", now)).toBe("in 2 hours");
    expect(formatRelative("2026-03-07T09:00:00Z", now)).toBe("in 2 days");
    expect(formatRelative("2026-03-05T08:55:00Z", now)).toBe("5 minutes ago");
    expect(formatRelative("2026-03-05T09:00:20Z", now)).toBe("now");
  });
});
