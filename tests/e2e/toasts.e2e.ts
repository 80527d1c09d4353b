// Spec §9 in a real browser: toasts top-right (success 3 s, error 4 s), page-level notices top-center for 1 s,
// and a disabled button at opacity 0.75 with the not-allowed cursor. Each toast's life is measured in the page
// (performance.now, from when it is added until it starts to leave), one toast at a time, with the mouse away
// from it (hovering pauses a toast).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { AGENT_PATH, inPage, openAgentsAsDemo, productForThisFile } from "./harness";

const e2e = productForThisFile();
const VIEWPORT = { width: 1366, height: 860 };

interface Life {
  shown: number;
  gone?: number;
  container: "topRight" | "topCenter" | "other";
}

/**
 * In the page: `__watchToast(text)` records when a toast or notice with this text appears and when it starts to
 * leave (a notice in its leave animation is closing: its time is over). Plain JavaScript in a string, as tsx's
 * function-name helper does not exist in the page.
 */
const RECORDER = `
window.__toastLives = {};
window.__watchToast = function (text) {
  var lives = window.__toastLives;
  var observer, timer;
  function find() {
    return Array.from(document.querySelectorAll(".ant-notification-notice, .ant-message-notice")).find(function (element) {
      return element.textContent.indexOf(text) !== -1 && !element.closest('[class*="-leave"]');
    });
  }
  function check() {
    var element = find();
    var life = lives[text];
    if (element && !life) {
      lives[text] = {
        shown: performance.now(),
        container: element.closest(".ant-notification-topRight") ? "topRight" : element.closest(".ant-message") ? "topCenter" : "other",
      };
    } else if (!element && life && life.gone === undefined) {
      life.gone = performance.now();
      observer.disconnect();
      clearInterval(timer);
    }
  }
  observer = new MutationObserver(check);
  observer.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["class"] });
  timer = setInterval(check, 20);
};
`;

async function watchToast(page: Page, text: string): Promise<void> {
  if (!(await page.evaluate("typeof window.__watchToast === 'function'"))) await page.evaluate(RECORDER);
  await page.evaluate(`window.__watchToast(${JSON.stringify(text)})`);
}

/** Waits until the toast has come and gone; its life in seconds, where it was, and its box while it showed. */
async function measure(page: Page, text: string) {
  const notice = page.locator(".ant-notification-notice, .ant-message-notice").filter({ hasText: text });
  await notice.first().waitFor({ timeout: 20_000 });
  // Away from every toast: hovering one pauses it.
  await page.mouse.move(10, VIEWPORT.height - 10);
  await page.waitForTimeout(400); // past the entrance animation
  const box = await notice.first().boundingBox();
  assert.ok(box, `${text}: laid out`);
  const key = JSON.stringify(text);
  // Polled from here (the page's CSP refuses a string predicate); the times themselves are taken in the page.
  let life: Life | undefined;
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; await page.waitForTimeout(100)) {
    life = (await page.evaluate(`window.__toastLives[${key}]`)) as Life | undefined;
    if (life?.gone !== undefined) break;
  }
  assert.ok(life?.gone !== undefined, `${text}: still on screen after 15 s`);
  return { seconds: (life.gone! - life.shown) / 1000, container: life.container, box };
}

function assertSeconds(text: string, seconds: number, expected: number) {
  // Lower bound: it stays its time (timers fire late, never early). Upper: some slack for a busy 2-core machine.
  assert.ok(seconds >= expected - 0.1 && seconds <= expected + 0.6, `${text}: on screen ${seconds.toFixed(2)} s, expected ${expected} s`);
}

function assertTopRight(text: string, box: { x: number; y: number; width: number }) {
  assert.ok(VIEWPORT.width - (box.x + box.width) <= 40, `${text}: at the right edge (box ${JSON.stringify(box)})`);
  assert.ok(box.y <= 100, `${text}: at the top (box ${JSON.stringify(box)})`);
}

function assertTopCenter(text: string, box: { x: number; y: number; width: number }) {
  assert.ok(Math.abs(box.x + box.width / 2 - VIEWPORT.width / 2) <= 20, `${text}: centred (box ${JSON.stringify(box)})`);
  assert.ok(box.y <= 60, `${text}: at the top (box ${JSON.stringify(box)})`);
}

test("toasts: errors 4 s and successes 3 s top-right; 'Agent saved' and 'Link copied' 1 s top-center; a disabled Save at opacity 0.75, not-allowed", async () => {
  await inPage(e2e.browser, "toasts and disabled buttons", async (page) => {
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: e2e.product.baseURL });
    await openAgentsAsDemo(page, e2e.product.baseURL);

    // Nothing changed yet: Save is disabled, and looks it.
    const save = page.getByRole("button", { name: "Save", exact: true });
    assert.equal(await save.isDisabled(), true);
    const style = await save.evaluate((element) => {
      const computed = getComputedStyle(element);
      return { opacity: computed.opacity, cursor: computed.cursor };
    });
    assert.deepEqual(style, { opacity: "0.75", cursor: "not-allowed" });
    // An enabled button is not dimmed.
    const newAgent = page.getByRole("button", { name: "New agent", exact: true });
    assert.equal(await newAgent.evaluate((element) => getComputedStyle(element).opacity), "1");

    // An error toast (through Refine's notification provider): a blank name cannot be saved.
    const name = page.getByLabel("Agent name", { exact: true });
    const original = await name.inputValue();
    await name.fill("");
    await watchToast(page, "Some settings need fixing before saving");
    await save.click();
    const error = await measure(page, "Some settings need fixing before saving");
    assert.equal(error.container, "topRight");
    assertTopRight("error toast", error.box);
    assertSeconds("error toast", error.seconds, 4);

    // A page-level notice: saved.
    await name.fill(`${original} (renamed)`);
    await watchToast(page, "Agent saved");
    await save.click();
    const saved = await measure(page, "Agent saved");
    assert.equal(saved.container, "topCenter");
    assertTopCenter("'Agent saved'", saved.box);
    assertSeconds("'Agent saved'", saved.seconds, 1);

    // A success toast: a new agent.
    const firstAgent = page.url();
    await watchToast(page, "Agent created");
    await newAgent.click();
    const dialog = page.getByRole("dialog", { name: "New agent" });
    await dialog.getByRole("textbox", { name: "Name", exact: true }).fill("E2E toasts");
    await dialog.getByRole("button", { name: "Create agent" }).click();
    const created = await measure(page, "Agent created");
    assert.equal(created.container, "topRight");
    assertTopRight("success toast", created.box);
    assertSeconds("success toast", created.seconds, 3);
    await page.waitForURL((url) => AGENT_PATH.test(url.pathname) && url.href !== firstAgent, { timeout: 20_000 });

    // Another page-level notice: a copied link.
    await watchToast(page, "Link copied");
    await page.getByRole("button", { name: "Copy public link" }).click();
    const copied = await measure(page, "Link copied");
    assert.equal(copied.container, "topCenter");
    assertTopCenter("'Link copied'", copied.box);
    assertSeconds("'Link copied'", copied.seconds, 1);
  });
});
