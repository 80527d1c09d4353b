import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page, Response } from "playwright-core";
import type { Dashboard } from "../../contract/dashboard";
import { inPage, productForThisFile, signIn } from "./harness";

// The demo seed (SEED_DEMO, on in the harness) gives the demo organisation 2,000 sandbox calls over 90 days.
const e2e = productForThisFile();

/** The next GET /api/<path> answer whose query has all of `params` (a value of null: the parameter absent). */
function apiAnswer(page: Page, path: string, params: Record<string, string | null> = {}): Promise<Response> {
  return page.waitForResponse((response) => {
    const url = new URL(response.url());
    return (
      response.request().method() === "GET" &&
      url.pathname === `/api${path}` &&
      Object.entries(params).every(([key, value]) => url.searchParams.get(key) === value)
    );
  });
}

const count = (n: number) => n.toLocaleString("en-US");

test("Dashboard: the demo organisation's figures after sign-in, a period change, and a day opened in Call Logs with exactly its calls", async () => {
  await inPage(e2e.browser, "dashboard", async (page) => {
    const first = apiAnswer(page, "/dashboard/");
    await signIn(page, e2e.product.baseURL);
    await page.waitForURL(/\/dashboard$/, { timeout: 20_000 });
    const answer = await first;
    assert.equal(answer.status(), 200);
    const landing = ((await answer.json()) as { data: Dashboard }).data;
    assert.equal(landing.period.days, 30);
    assert.ok(landing.totals.calls > 0, "the demo organisation has calls in the last 30 days");

    // The Calls card shows the answer's figure, not a placeholder.
    const callsCard = page.locator('[data-kpi="calls"]');
    await callsCard.waitFor({ timeout: 20_000 });
    assert.match((await callsCard.textContent()) ?? "", new RegExp(count(landing.totals.calls)));

    // Last 7 days: the URL keeps the period and the API is asked for 7 days.
    await page.locator(".dashboard__filter--period").click();
    const [weekly] = await Promise.all([apiAnswer(page, "/dashboard/"), page.locator('.ant-select-item-option[title="Last 7 days"]').click()]);
    await page.waitForURL((url) => url.searchParams.get("period") === "7d");
    const week = ((await weekly.json()) as { data: Dashboard }).data;
    assert.equal(week.period.days, 7);
    assert.equal(week.series.length, 7);
    await page.waitForFunction(
      (expected) => document.querySelector('[data-kpi="calls"]')?.textContent?.includes(expected) ?? false,
      count(week.totals.calls),
    );

    // A day with calls, opened from the calls chart: Call Logs lists exactly that day's calls in the organisation's zone.
    // The busiest day whose number of calls no other day shares: its link's name is then unique.
    const unique = week.series.filter((day) => day.calls > 0 && week.series.filter((other) => other.calls === day.calls).length === 1);
    const busiest = unique.sort((a, b) => b.calls - a.calls)[0];
    assert.ok(busiest, "a day of the last 7 had a number of calls of its own");
    const [list] = await Promise.all([
      apiAnswer(page, "/call/", { startDate: busiest.date, endDate: busiest.date, timezone: week.period.timezone }),
      page
        .getByRole("link", { name: new RegExp(`: ${count(busiest.calls)} calls, .* minutes — open these calls`) })
        .first()
        .click(),
    ]);
    await page.getByRole("heading", { name: "Call Logs" }).waitFor();
    assert.equal(list.status(), 200);
    const body = (await list.json()) as { total: number; data: Array<{ started_at: string }> };
    assert.equal(body.total, busiest.calls, "the list counts the calls the dashboard counted that day");
    await page.locator(".ant-table-row").first().waitFor({ timeout: 20_000 });
    assert.equal(await page.getByPlaceholder("From date").inputValue(), busiest.date);
    assert.equal(await page.getByPlaceholder("To date").inputValue(), busiest.date);
  });
});
