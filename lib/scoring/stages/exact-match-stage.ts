/**
 * Stage 2: every ground-truth tool response of the turn must be among the last N replayed
 * responses of the prediction. Strict mode compares canonical JSON and never passes a turn
 * whose ground truth has no responses; VAKRA mode compares Python `str()` forms (None as "")
 * and passes that turn vacuously, as VAKRA does.
 */
import { canonicalJson } from "../../formats/canonical-json";
import { vakraResponseString } from "../vakra-strings";
import { verdict, type Verdict } from "../verdict";

export interface ExactMatchInput {
  turnId: number;
  groundTruth: readonly unknown[];
  predicted: readonly unknown[];
  window: number;
  compat: "strict" | "vakra";
}

export function checkExactMatch(input: ExactMatchInput): Verdict {
  const base = { stage: "exact" as const, turnId: input.turnId, judge: "program" };
  const form = input.compat === "vakra" ? vakraResponseString : canonicalJson;
  if (input.groundTruth.length === 0) {
    return input.compat === "vakra"
      ? verdict({ ...base, outcome: "pass", score: 1, reason: "ground truth has no tool responses: passed vacuously (compat: vakra)" })
      : verdict({ ...base, outcome: "fail", score: 0, reason: "ground truth has no tool responses, so exact match cannot pass" });
  }
  const recent = new Set(input.predicted.slice(-input.window).map(form));
  const missing: number[] = [];
  input.groundTruth.forEach((r, i) => {
    if (!recent.has(form(r))) missing.push(i);
  });
  if (missing.length === 0) {
    return verdict({ ...base, outcome: "pass", score: 1, reason: `all ${input.groundTruth.length} ground-truth response(s) found among the last ${input.window} predicted responses` });
  }
  const first = form(input.groundTruth[missing[0]!]);
  // The expected responses are the ground truth: which one is missing is private.
  return verdict({
    ...base,
    outcome: "fail",
    score: 0,
    reason: `${missing.length} of ${input.groundTruth.length} ground-truth response(s) not found among the last ${Math.min(input.window, input.predicted.length)} predicted responses`,
    detail: `first missing #${missing[0]! + 1}: ${first.length > 200 ? `${first.slice(0, 200)}…` : first}`,
  });
}
