import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SUCCESS_EVALUATION_RUBRICS } from "../../contract/agent";
import { successOutcome } from "../../contract/success-outcome";
import { describeSuccessEvaluation } from "../../src/components/calls/success-evaluation";

describe("a success evaluation's readable form", () => {
  it("PassFail: a Pass or Fail tag, whatever the case", () => {
    expect(describeSuccessEvaluation("true", "PassFail")).toEqual({ label: "Pass", color: "green" });
    expect(describeSuccessEvaluation("FALSE", "PassFail")).toEqual({ label: "Fail", color: "red" });
    expect(describeSuccessEvaluation(" pass ", "PassFail")).toEqual({ label: "Pass", color: "green" });
  });

  it("PercentageScale: a percentage, green from 70% (a pass), gold for a near miss", () => {
    expect(describeSuccessEvaluation("80", "PercentageScale")).toEqual({ label: "80%", color: "green" });
    expect(describeSuccessEvaluation("70", "PercentageScale")).toEqual({ label: "70%", color: "green" });
    expect(describeSuccessEvaluation("55%", "PercentageScale")).toEqual({ label: "55%", color: "gold" });
    expect(describeSuccessEvaluation("25", "PercentageScale")).toEqual({ label: "25%", color: "red" });
    expect(describeSuccessEvaluation("8", "PercentageScale")).toEqual({ label: "8%", color: "red" });
    expect(describeSuccessEvaluation("66.66", "PercentageScale")).toEqual({ label: "66.7%", color: "gold" });
  });

  it("NumericScale: n/10, green from 7 (a pass)", () => {
    expect(describeSuccessEvaluation("8", "NumericScale")).toEqual({ label: "8/10", color: "green" });
    expect(describeSuccessEvaluation("7", "NumericScale")).toEqual({ label: "7/10", color: "green" });
    expect(describeSuccessEvaluation("5", "NumericScale")).toEqual({ label: "5/10", color: "gold" });
    expect(describeSuccessEvaluation("3", "NumericScale")).toEqual({ label: "3/10", color: "red" });
    // Beyond the scale, or with a '%': the answer's shape wins.
    expect(describeSuccessEvaluation("80", "NumericScale")).toEqual({ label: "80%", color: "green" });
  });

  it("DescriptiveScale and LikertScale: the word, capitalised, green only for the words that pass", () => {
    expect(describeSuccessEvaluation("Excellent", "DescriptiveScale")).toEqual({ label: "Excellent", color: "green" });
    expect(describeSuccessEvaluation("fair", "DescriptiveScale")).toEqual({ label: "Fair", color: "gold" });
    expect(describeSuccessEvaluation("Poor.", "DescriptiveScale")).toEqual({ label: "Poor", color: "red" });
    expect(describeSuccessEvaluation("strongly  agree", "LikertScale")).toEqual({ label: "Strongly agree", color: "green" });
    expect(describeSuccessEvaluation("Neutral", "LikertScale")).toEqual({ label: "Neutral", color: "gold" });
    expect(describeSuccessEvaluation("Disagree", "LikertScale")).toEqual({ label: "Disagree", color: "red" });
  });

  it("Checklist, Matrix and AutomaticRubric: a known word as a word, anything else as free text", () => {
    expect(describeSuccessEvaluation("Good", "AutomaticRubric")).toEqual({ label: "Good", color: "green" });
    expect(describeSuccessEvaluation("Poor", "Matrix")).toEqual({ label: "Poor", color: "red" });
    const text = "All checklist items were completed.";
    expect(describeSuccessEvaluation(text, "Checklist")).toEqual({ label: text, freeText: true });
  });

  it("without a rubric (the agent was deleted): true/false, a percentage above 10, a 10-point score otherwise", () => {
    expect(describeSuccessEvaluation("true")).toEqual({ label: "Pass", color: "green" });
    expect(describeSuccessEvaluation("25")).toEqual({ label: "25%", color: "red" });
    expect(describeSuccessEvaluation("7", null)).toEqual({ label: "7/10", color: "green" });
    expect(describeSuccessEvaluation("Good")).toEqual({ label: "Good", color: "green" });
  });

  it("takes the call's own pass/fail when it has one (judged under the rubric the call was made with)", () => {
    // The agent's rubric is PercentageScale now; the call was judged out of 10 and passed.
    expect(describeSuccessEvaluation("8", "PercentageScale", "pass")).toEqual({ label: "8%", color: "green" });
    expect(describeSuccessEvaluation("true", "PassFail", null)).toEqual({ label: "Pass" });
  });

  it("nothing to show for no answer", () => {
    expect(describeSuccessEvaluation(null, "PassFail")).toBeNull();
    expect(describeSuccessEvaluation("  ", "PercentageScale")).toBeNull();
  });

  it("every rubric Vapi knows reads its own typical answer as something other than the raw 'true' or a bare number", () => {
    const typical: Record<(typeof SUCCESS_EVALUATION_RUBRICS)[number], string> = {
      PassFail: "true",
      PercentageScale: "80",
      NumericScale: "8",
      DescriptiveScale: "Good",
      LikertScale: "Agree",
      AutomaticRubric: "Good",
      Matrix: "Good",
      Checklist: "All checklist items were completed.",
    };
    for (const rubric of SUCCESS_EVALUATION_RUBRICS) {
      const label = describeSuccessEvaluation(typical[rubric], rubric)!.label;
      expect(label, rubric).not.toMatch(/^(true|false|\d+)$/);
    }
  });

  it("a green tag is exactly a pass under contract/success-outcome.ts, for any answer and rubric", () => {
    const words = ["true", "False", "pass", "failed", "Excellent", "good", "Fair", "poor", "Strongly agree", "agree", "Neutral", "disagree", "Strongly Disagree", "maybe", "All done."];
    const answer = fc.oneof(
      fc.constantFrom(...words),
      fc.integer({ min: 0, max: 120 }).map(String),
      fc.double({ min: 0, max: 100, noNaN: true }).map((n) => `${n.toFixed(1)}%`),
      fc.double({ min: 0, max: 10, noNaN: true }).map((n) => n.toFixed(2)),
    );
    const rubric = fc.option(fc.constantFrom(...SUCCESS_EVALUATION_RUBRICS), { nil: undefined });
    fc.assert(
      fc.property(answer, rubric, (raw, chosen) => {
        const green = describeSuccessEvaluation(raw, chosen)?.color === "green";
        expect(green).toBe(successOutcome(raw, chosen) === "pass");
      }),
    );
  });
});
