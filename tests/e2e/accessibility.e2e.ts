// Accessibility: WCAG 2.2 AA as axe-core checks it (./axe.ts: its wcag2a, wcag2aa, wcag21a, wcag21aa and
// wcag22aa rules) finds no critical or serious violation on the sign-in page, every shell route, the public
// pages, and the drawers, dialogs and wizard steps they open, at a desktop (1440×900) and a phone (390×844)
// size. One browser context per size, signed in once; each screen is opened by its URL or a click.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { arrange, SCREENS, SIZES, type Fixture } from "./accessibility-screens";
import { axeViolations, blocking, formatViolations, type AxeViolation } from "./axe";
import { demoApi, inPage, productForThisFile, resultsDir } from "./harness";

const e2e = productForThisFile();
const api = demoApi(() => e2e.product.baseURL);

let fixture: Promise<Fixture> | undefined;

/** Per size: each screen's violations at every impact (written to test-results/ for reading). */
async function check(size: keyof typeof SIZES) {
  const data = await (fixture ??= arrange(api));
  const found: { screen: string; violations: AxeViolation[] }[] = [];
  const started = Date.now();
  await inPage(
    e2e.browser,
    `accessibility ${size}`,
    async (page) => {
      for (const screen of SCREENS) {
        await screen.open(page, e2e.product.baseURL, data);
        found.push({ screen: screen.name, violations: await axeViolations(page) });
      }
    },
    { viewport: SIZES[size] },
  );
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, `axe-${size}.json`), JSON.stringify(found, null, 1));
  const failing = found.filter(({ violations }) => blocking(violations).length);
  console.log(`# ${size}: ${SCREENS.length} screens checked in ${Date.now() - started} ms`);
  assert.equal(
    failing.length,
    0,
    `critical or serious WCAG 2.2 AA violations at ${SIZES[size].width}×${SIZES[size].height}:\n` +
      failing.map(({ screen, violations }) => formatViolations(screen, blocking(violations))).join("\n"),
  );
}

test("at 1440×900 no screen, drawer, dialog or wizard step has a critical or serious WCAG 2.2 AA violation (axe)", () => check("desktop"));
test("at 390×844 no screen, drawer, dialog or wizard step has a critical or serious WCAG 2.2 AA violation (axe)", () => check("phone"));
