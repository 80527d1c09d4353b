// axe-core in the browser suite: WCAG 2.2 AA as axe checks it (its wcag2a, wcag2aa, wcag21a, wcag21aa and
// wcag22aa rules) on whatever the page shows now: a screen, an open drawer, dialog or wizard step.
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const require = createRequire(import.meta.url);
const axeSource: string = (require("axe-core") as { source: string }).source;

/** The rule sets checked; never narrowed to make a screen pass. */
export const WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"] as const;

export interface AxeViolation {
  id: string;
  impact: "minor" | "moderate" | "serious" | "critical" | null;
  help: string;
  nodes: { target: string[]; html: string; summary: string }[];
}

/**
 * Runs axe on the page as it is (evaluating axe-core's source once per document) and returns the
 * violations of WCAG_TAGS, each with its nodes' selectors and a short HTML excerpt.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  const loaded = await page.evaluate("typeof window.axe === 'object'");
  // Evaluated, not added as a <script>: the product's Content-Security-Policy (script-src 'self') refuses
  // inline scripts, and DevTools' evaluation is not subject to it.
  if (!loaded) await page.evaluate(axeSource);
  // A string, not a function: the test runner's transform names functions with a helper the page lacks.
  const violations = (await page.evaluate(`(async () => {
    const result = await window.axe.run(document, { runOnly: { type: "tag", values: ${JSON.stringify(WCAG_TAGS)} }, resultTypes: ["violations"] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({
        target: n.target.map(String),
        html: n.html.replace(/\\s+/g, " ").slice(0, 160),
        summary: (n.failureSummary || "").replace(/\\s+/g, " ").slice(0, 200),
      })),
    }));
  })()`)) as AxeViolation[];
  return violations;
}

/** Violations at `serious` or `critical` impact: the ones the suite allows none of. */
export function blocking(violations: AxeViolation[]): AxeViolation[] {
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical");
}

/** A readable list: one line per rule (impact, id, node count, help), then each node's selector and HTML. */
export function formatViolations(where: string, violations: AxeViolation[], nodesPerRule = 5): string {
  if (!violations.length) return `${where}: no violations`;
  const lines = [`${where}: ${violations.reduce((n, v) => n + v.nodes.length, 0)} violating nodes`];
  for (const v of violations) {
    lines.push(`  [${v.impact}] ${v.id} ×${v.nodes.length}: ${v.help}`);
    for (const node of v.nodes.slice(0, nodesPerRule)) {
      lines.push(`      ${node.target.join(" ")}  ${node.html}`);
      if (node.summary) lines.push(`        ${node.summary}`);
    }
    if (v.nodes.length > nodesPerRule) lines.push(`      … and ${v.nodes.length - nodesPerRule} more`);
  }
  return lines.join("\n");
}
