/**
 * Fuzzing, part 2: bad ids and malformed URLs in every route with a parameter (reads and writes) →
 * 4xx {detail, code} and nothing changed; any query string on every list route → 200 or a 4xx
 * {detail, code}, never a 5xx, and nothing changed. See fuzz-kit.ts.
 */
import { sql } from "drizzle-orm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { anyText, fuzzingForThisFile, paramCases } from "./fuzz-kit";
import { inject, paramsOf } from "./world";

const fuzzing = fuzzingForThisFile(import.meta.filename);

describe("fuzzing ids and query strings", () => {
  it("the change counter the fuzzers read moves on a committed write, and not on a read or a rolled-back write", async () => {
    const { db } = fuzzing.world;
    const touch = sql`update organizations set name = name where id = (select id from organizations order by id limit 1)`;
    const first = await fuzzing.fuzzer.changeCount();
    await db.execute(sql`select count(*) from organizations`);
    expect(await fuzzing.fuzzer.changeCount()).toBe(first);
    await db
      .transaction(async (tx) => {
        await tx.execute(touch);
        throw new Error("roll back");
      })
      .catch(() => undefined);
    expect(await fuzzing.fuzzer.changeCount()).toBe(first);
    await db.execute(touch);
    expect(await fuzzing.fuzzer.changeCount()).toBe(first + 1);
  });

  it("routes with ids: bad ids in the path answer 4xx {detail, code} and change nothing", async () => {
    for (const route of fuzzing.world.routes.filter((r) => paramsOf(r.url).length > 0)) {
      await fuzzing.fuzzer.fuzzRoute(route, route.public ? null : fuzzing.world.b.adminToken, [paramCases(route)]);
    }
    // One test over the whole route table: its time grows with every route.
  }, 600_000);

  it("list routes: any query string answers 200 or a 4xx {detail, code}, never a 5xx, and changes nothing", async () => {
    const lists = fuzzing.world.routes.filter((route) => route.method === "GET" && paramsOf(route.url).length === 0);
    for (const route of lists) {
      const token = route.public ? null : fuzzing.world.b.adminToken;
      // The wallet is created on its first read (with the starting credit): read once before the snapshot.
      await inject(fuzzing.world.app, "GET", route.url, token);
      const parameters = fuzzing.fuzzer.openapi.paths[route.url]?.get?.parameters ?? [];
      const known = parameters.filter((parameter) => parameter.in === "query").map((parameter) => parameter.name);
      const anyKey = fc.string({ minLength: 1, maxLength: 12 });
      const key = known.length > 0 ? fc.oneof(fc.constantFrom(...known), anyKey) : anyKey;
      const value = fc.oneof(anyText, fc.integer().map(String), fc.constantFrom("-1", "0", "1e9", "9".repeat(400), "2026-02-30", "asc", "desc", "a,b,,c", "%", "%00", "\u0000"));
      const query = fc.array(fc.tuple(key, value), { minLength: 1, maxLength: 4 }).map((pairs) => ({
        kind: "list query string",
        query: pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&"),
      }));
      await fuzzing.fuzzer.fuzzRoute(route, token, [query], (status) => status === 200 || (status >= 400 && status < 500));
    }
  });
});
