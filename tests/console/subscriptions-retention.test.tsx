/**
 * The downgrade preview says what the retention sweep will delete, with the server's count, before the member
 * confirms (issue 31, item 9); and when nothing will be deleted it says so.
 */
import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { subscriptionText as text } from "../../src/components/subscriptions/strings";
import { makeSubscription, serveSubscription, type RetentionOverrides } from "./subscriptions-fixtures";
import { findDialog, findScreen, installFetchFake, renderConsole, signedInAs } from "./test-utils";

async function open(subscription = makeSubscription("starter"), retention: RetentionOverrides = {}) {
  const fetch = installFetchFake();
  serveSubscription(fetch, { subscription, changeUrl: null, retention });
  const rendered = renderConsole({ path: "/subscriptions", fetch, session: signedInAs("org:admin") });
  await findScreen("Subscriptions");
  return { ...rendered, fetch };
}

const hhmm = (instant: string) => new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit" }).format(Date.parse(instant));

describe("Subscriptions: what a downgrade deletes", () => {
  it("says how many calls' transcripts and recordings the sweep deletes, and when, before Confirm is pressed", async () => {
    const next = new Date(Date.now() + 40_000).toISOString();
    const { user, fetch } = await open(makeSubscription("starter"), { calls: 1_234, next_sweep_at: next });
    await user.click(await screen.findByRole("button", { name: "Downgrade to Free" }));
    const dialog = await findDialog("Change to Free");

    expect(await within(dialog).findByText("Transcripts and recordings of 1,234 calls older than 14 days will be deleted.")).toBeVisible();
    expect(within(dialog).getByText(text.preview.retention.title)).toBeVisible();
    expect(
      within(dialog).getByText(`The retention sweep deletes them within a minute of the change (it runs next at ${hhmm(next)}). Summaries, outcomes and costs are kept.`),
    ).toBeVisible();
    // Nothing has been asked to change yet: the member reads this first.
    expect(fetch.to("POST", "/api/subscription/change")).toHaveLength(0);
    expect(within(dialog).getByRole("button", { name: "Confirm" })).toBeEnabled();

    await user.click(within(dialog).getByRole("button", { name: "Confirm" }));
    await screen.findByText("You are now on Free");
    expect(fetch.to("POST", "/api/subscription/change").map((request) => request.body)).toEqual([{ plan: "free" }]);
  });

  it("one call is one call", async () => {
    const { user } = await open(makeSubscription("pro"), { calls: 1 });
    await user.click(await screen.findByRole("button", { name: "Downgrade to Starter" }));
    const dialog = await findDialog("Change to Starter");
    expect(await within(dialog).findByText("Transcripts and recordings of 1 call older than 90 days will be deleted.")).toBeVisible();
    expect(within(dialog).getByText(/^The retention sweep deletes them within a minute of the change\. Summaries/)).toBeVisible();
  });

  it("says nothing will be deleted when no call is past the new plan's days", async () => {
    const { user } = await open(makeSubscription("starter"), { calls: 0 });
    await user.click(await screen.findByRole("button", { name: "Downgrade to Free" }));
    const dialog = await findDialog("Change to Free");
    expect(await within(dialog).findByText("No transcripts or recordings will be deleted: no call older than 14 days still has them.")).toBeVisible();
    expect(within(dialog).queryByText(text.preview.retention.title)).toBeNull();
  });

  it("a cancellation to Free at the period's end says the deletion comes when the plan changes, and what is past the cut-off so far", async () => {
    const { user } = await open(makeSubscription("starter"), {
      calls: 310,
      at_period_end: true,
      applies_at: "2027-01-07T12:00:00.000Z",
      cutoff: "2026-12-24T12:00:00.000Z",
    });
    await user.click(await screen.findByRole("button", { name: "Downgrade to Free" }));
    const dialog = await findDialog("Change to Free");
    expect(
      await within(dialog).findByText(
        "Transcripts and recordings of calls older than 14 days will be deleted when the plan changes on 7 Jan 2027: 310 calls placed before 24 Dec 2026 so far. Summaries, outcomes and costs are kept.",
      ),
    ).toBeVisible();
  });

  it("an upgrade that deletes nothing says nothing about it", async () => {
    const { user } = await open(makeSubscription("starter"), { calls: 0 });
    await user.click(await screen.findByRole("button", { name: "Upgrade to Pro" }));
    const dialog = await findDialog("Change to Pro");
    await within(dialog).findByText("+$150 a month");
    expect(within(dialog).queryByTestId("preview-retention")).toBeNull();
  });
});
