/**
 * A success evaluation counted as pass or fail (the dashboard's success rate and the call list's
 * `success` filter). No zod: the console reads it. The console's tag for the same answer
 * (src/components/calls/success-evaluation.ts) reads it the same way, so a green tag is a pass.
 *
 * Vapi answers the evaluation as text whose form depends on the agent's rubric. Counted as:
 * | answer                                                        | pass                 | fail                     |
 * |---------------------------------------------------------------|----------------------|--------------------------|
 * | true / pass / passed, false / fail / failed (any rubric)       | true, pass, passed   | false, fail, failed      |
 * | a percentage: "80%", or a number under PercentageScale, or a number above 10 under any other rubric | ≥ 70 | < 70 |
 * | a number 0–10 under NumericScale or an unknown rubric          | ≥ 7                  | < 7                      |
 * | DescriptiveScale words                                        | Excellent, Good      | Fair, Poor               |
 * | LikertScale words                                             | Strongly agree, Agree | Neutral, Disagree, Strongly disagree |
 * | anything else (Checklist, Matrix, AutomaticRubric free text)  | not counted          | not counted              |
 *
 * success_rate = pass ÷ (pass + fail): calls without an evaluation, or with one that is neither, are
 * left out of both. The call does not record the rubric it was judged by, so the server counts the
 * answer under its agent's rubric when the answer arrives and stores the result (calls.success_outcome):
 * a later change of rubric does not change what a past call counted as.
 */

export const SUCCESS_OUTCOMES = ["pass", "fail"] as const;
export type SuccessOutcome = (typeof SUCCESS_OUTCOMES)[number];

/** The rubrics (contract/agent.ts SUCCESS_EVALUATION_RUBRICS), repeated here without zod. */
export type SuccessRubricName =
  | "NumericScale"
  | "DescriptiveScale"
  | "Checklist"
  | "Matrix"
  | "PercentageScale"
  | "LikertScale"
  | "AutomaticRubric"
  | "PassFail";

/** A percentage at or above this passes. */
export const SUCCESS_PASS_PERCENT = 70;
/** A 10-point score at or above this passes. */
export const SUCCESS_PASS_SCORE = 7;

const PASS_WORDS = new Set(["true", "pass", "passed", "excellent", "good", "strongly agree", "agree"]);
const FAIL_WORDS = new Set(["false", "fail", "failed", "fair", "poor", "neutral", "disagree", "strongly disagree"]);
const NUMBER = /^([+-]?\d+(?:\.\d+)?)\s*(%?)$/;

/** An answer lower-cased, trailing '.'/'!' dropped and spaces collapsed (how words are compared). */
export function normalizedEvaluation(raw: string): string {
  return raw.trim().toLowerCase().replace(/[.!]+$/, "").replace(/\s+/g, " ");
}

/**
 * How a number reads under `rubric`: a percentage (0–100) or a 10-point score; the answer's own shape
 * wins ("80%" is a percentage whatever the rubric).
 */
export function evaluationScale(score: number, percentSign: boolean, rubric: SuccessRubricName | null | undefined): "percent" | "ten" {
  if (percentSign || rubric === "PercentageScale" || score > 10) return "percent";
  return "ten";
}

/** Pass, fail, or null (no evaluation, or one that is neither): the table in the file comment. */
export function successOutcome(raw: string | null | undefined, rubric?: SuccessRubricName | null): SuccessOutcome | null {
  const value = (raw ?? "").trim();
  if (!value) return null;
  const number = NUMBER.exec(value);
  if (number) {
    const score = Number(number[1]);
    if (evaluationScale(score, number[2] === "%", rubric) === "percent") return score >= SUCCESS_PASS_PERCENT ? "pass" : "fail";
    return score >= SUCCESS_PASS_SCORE ? "pass" : "fail";
  }
  const lower = normalizedEvaluation(value);
  if (PASS_WORDS.has(lower)) return "pass";
  if (FAIL_WORDS.has(lower)) return "fail";
  return null;
}
