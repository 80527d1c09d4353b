import type { SUCCESS_EVALUATION_RUBRICS } from "../../../contract/agent";
import {
  evaluationScale,
  normalizedEvaluation,
  successOutcome,
  SUCCESS_PASS_PERCENT,
  SUCCESS_PASS_SCORE,
  type SuccessOutcome,
} from "../../../contract/success-outcome";
import { strings } from "../../config/strings";

export type SuccessRubric = (typeof SUCCESS_EVALUATION_RUBRICS)[number];

/**
 * How a call's success evaluation reads in the console. Vapi stores the evaluator's answer as text in
 * `analysis.successEvaluation`; its form depends on the agent's rubric (Vapi's SuccessEvaluationPlan):
 *
 * | rubric            | Vapi's answer                                   | shown as                         |
 * |-------------------|-------------------------------------------------|----------------------------------|
 * | PassFail          | true / false                                    | a Pass / Fail tag                |
 * | PercentageScale   | 0–100 (sometimes with '%')                      | "80%"                            |
 * | NumericScale      | 1–10                                            | "8/10"                           |
 * | DescriptiveScale  | Excellent, Good, Fair, Poor                     | the word                         |
 * | LikertScale       | Strongly Agree … Strongly Disagree              | the word                         |
 * | Checklist, Matrix, AutomaticRubric | a word (e.g. Good) or free text | the word, or the text (shortened in the table) |
 *
 * Whether it passed is contract/success-outcome.ts's rule, the one the dashboard's success rate and
 * the call list's `success` filter count by: a green tag is exactly a pass. A fail is red, or gold
 * for a near miss (a score of 40% or more, Fair, Neutral). The call carries the server's verdict
 * (`success`, judged under the agent's rubric when the answer arrived); the tag takes it when given,
 * else applies the same rule under the agent's current rubric. The form of a number follows the same
 * rule's reading (contract evaluationScale): "80%" or above 10 is a percentage, else a 10-point score.
 */
export interface SuccessDisplay {
  /** What the cell shows. */
  label: string;
  /** The tag colour; undefined for a neutral tag. */
  color?: "green" | "gold" | "red";
  /** Free text (Checklist, Matrix, …): shown as text, shortened in the table, not as a tag. */
  freeText?: boolean;
}

const WORDS: Record<string, { label: string; nearMiss?: boolean }> = {
  excellent: { label: "Excellent" },
  good: { label: "Good" },
  fair: { label: "Fair", nearMiss: true },
  poor: { label: "Poor" },
  "strongly agree": { label: "Strongly agree" },
  agree: { label: "Agree" },
  neutral: { label: "Neutral", nearMiss: true },
  disagree: { label: "Disagree" },
  "strongly disagree": { label: "Strongly disagree" },
};

const PASS = new Set(["true", "pass", "passed"]);
const FAIL = new Set(["false", "fail", "failed"]);
const NUMBER = /^([+-]?\d+(?:\.\d+)?)\s*(%?)$/;
/** A failing score at or above this share of the scale is a near miss (gold, not red). */
const NEAR_MISS = 0.4;

/** Up to one decimal, no trailing zero: 80 → "80", 7.25 → "7.3". */
const short = (value: number) => String(Math.round(value * 10) / 10);

function colorOf(outcome: SuccessOutcome | null, nearMiss: boolean): SuccessDisplay["color"] {
  if (outcome === "pass") return "green";
  if (outcome === "fail") return nearMiss ? "gold" : "red";
  return undefined;
}

/**
 * The one readable form of a success evaluation under `rubric` (the agent's, when known); null when
 * there is none. `success`: the call's own pass/fail from the server, when the caller has it.
 */
export function describeSuccessEvaluation(
  raw: string | null | undefined,
  rubric?: SuccessRubric | null,
  success?: SuccessOutcome | null,
): SuccessDisplay | null {
  const value = (raw ?? "").trim();
  if (!value) return null;
  const outcome = success !== undefined ? success : successOutcome(value, rubric);
  const lower = normalizedEvaluation(value);
  const shown = (label: string, nearMiss = false): SuccessDisplay => {
    const color = colorOf(outcome, nearMiss);
    return color ? { label, color } : { label };
  };

  if (PASS.has(lower)) return shown(strings.callLogs.successPass);
  if (FAIL.has(lower)) return shown(strings.callLogs.successFail);

  const number = NUMBER.exec(value);
  if (number) {
    const score = Number(number[1]);
    if (evaluationScale(score, number[2] === "%", rubric) === "percent") {
      const percent = Math.min(100, Math.max(0, score));
      return shown(`${short(percent)}%`, percent >= NEAR_MISS * 100 && percent < SUCCESS_PASS_PERCENT);
    }
    const outOfTen = Math.min(10, Math.max(0, score));
    return shown(`${short(outOfTen)}/10`, outOfTen >= NEAR_MISS * 10 && outOfTen < SUCCESS_PASS_SCORE);
  }

  const word = WORDS[lower];
  if (word) return shown(word.label, word.nearMiss);
  return { label: value, freeText: true };
}
