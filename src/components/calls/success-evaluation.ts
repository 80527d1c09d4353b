import type { SUCCESS_EVALUATION_RUBRICS } from "../../../contract/agent";
import { strings } from "../../config/strings";

export type SuccessRubric = (typeof SUCCESS_EVALUATION_RUBRICS)[number];

/**
 * How a call's success evaluation reads in the console. Vapi stores the evaluator's answer as text in
 * `analysis.successEvaluation`; its form depends on the agent's rubric (Vapi's SuccessEvaluationPlan):
 *
 * | rubric            | Vapi's answer                                   | shown as                         |
 * |-------------------|-------------------------------------------------|----------------------------------|
 * | PassFail          | true / false                                    | a Pass (green) / Fail (red) tag  |
 * | PercentageScale   | 0–100 (sometimes with '%')                      | "80%" (green ≥ 70, gold ≥ 40)    |
 * | NumericScale      | 1–10                                            | "8/10" (green ≥ 7, gold ≥ 4)     |
 * | DescriptiveScale  | Excellent, Good, Fair, Poor                     | the word, coloured               |
 * | LikertScale       | Strongly Agree … Strongly Disagree              | the word, coloured               |
 * | Checklist, Matrix, AutomaticRubric | a word (e.g. Good) or free text | the word, or the text (shortened in the table) |
 *
 * The call does not record the rubric it was judged by; the console takes its agent's current rubric,
 * and the answer's own shape wins where the two disagree (true/false is always Pass/Fail, "80%" is a
 * percentage) — e.g. for a call made before the agent's rubric changed, or whose agent was deleted
 * (no rubric: a number above 10 can only be a percentage; 0–10 is shown as it is).
 */
export interface SuccessDisplay {
  /** What the cell shows. */
  label: string;
  /** The tag colour; undefined for a neutral tag. */
  color?: "green" | "gold" | "red";
  /** Free text (Checklist, Matrix, …): shown as text, shortened in the table, not as a tag. */
  freeText?: boolean;
}

const WORDS: Record<string, { label: string; color?: SuccessDisplay["color"] }> = {
  excellent: { label: "Excellent", color: "green" },
  good: { label: "Good", color: "green" },
  fair: { label: "Fair", color: "gold" },
  poor: { label: "Poor", color: "red" },
  "strongly agree": { label: "Strongly agree", color: "green" },
  agree: { label: "Agree", color: "green" },
  neutral: { label: "Neutral" },
  disagree: { label: "Disagree", color: "red" },
  "strongly disagree": { label: "Strongly disagree", color: "red" },
};

const PASS = new Set(["true", "pass", "passed"]);
const FAIL = new Set(["false", "fail", "failed"]);
const NUMBER = /^([+-]?\d+(?:\.\d+)?)\s*(%?)$/;

function scoreColor(fraction: number): SuccessDisplay["color"] {
  if (fraction >= 0.7) return "green";
  if (fraction >= 0.4) return "gold";
  return "red";
}

/** Up to one decimal, no trailing zero: 80 → "80", 7.25 → "7.3". */
const short = (value: number) => String(Math.round(value * 10) / 10);

/** The one readable form of a success evaluation under `rubric` (the agent's, when known); null when there is none. */
export function describeSuccessEvaluation(raw: string | null | undefined, rubric?: SuccessRubric | null): SuccessDisplay | null {
  const value = (raw ?? "").trim();
  if (!value) return null;
  const lower = value.toLowerCase().replace(/[.!]+$/, "").replace(/\s+/g, " ");

  if (PASS.has(lower)) return { label: strings.callLogs.successPass, color: "green" };
  if (FAIL.has(lower)) return { label: strings.callLogs.successFail, color: "red" };

  const number = NUMBER.exec(value);
  if (number) {
    const score = Number(number[1]);
    const percentSign = number[2] === "%";
    if (percentSign || rubric === "PercentageScale" || (!rubric && score > 10) || (rubric === "NumericScale" && score > 10)) {
      const percent = Math.min(100, Math.max(0, score));
      return { label: `${short(percent)}%`, color: scoreColor(percent / 100) };
    }
    if (rubric === "NumericScale") {
      const outOfTen = Math.min(10, Math.max(0, score));
      return { label: `${short(outOfTen)}/10`, color: scoreColor(outOfTen / 10) };
    }
    return { label: short(score) };
  }

  const word = WORDS[lower];
  if (word) return word.color ? { label: word.label, color: word.color } : { label: word.label };
  return { label: value, freeText: true };
}
