/**
 * What /admin/disputes says after a decision, or why it was refused. The query string only
 * carries a code; the words are fixed here, so no link can put text in the maintainers' page.
 */
export const DISPUTE_ERRORS = {
  decision: "Choose pass or fail (correctness and groundedness), or a score from 0 to 1 (graded stages).",
  changed: "That grade is no longer open (it was decided meanwhile): look at the list again.",
  "no-dispute": "No disputed grade was given.",
} as const;

export type DisputeErrorCode = keyof typeof DISPUTE_ERRORS;

/** The fixed message for a code; an unknown code gets a generic one, none for absent. */
export function disputeMessage(code: string | undefined): string | null {
  if (!code) return null;
  return Object.hasOwn(DISPUTE_ERRORS, code) ? DISPUTE_ERRORS[code as DisputeErrorCode] : "Something went wrong: try again.";
}

/** A decision as a form (or a confirmation link) states it: `outcome` pass/fail, or `score` 0–1; null when neither reads. */
export function decisionOfForm(outcome: string, score: string): { outcome: "pass" | "fail" } | { outcome: "scored"; score: number } | null {
  if (outcome === "pass" || outcome === "fail") return { outcome };
  if (outcome !== "scored" || !/^\s*(0(\.\d+)?|1(\.0+)?|\.\d+)\s*$/.test(score)) return null;
  return { outcome: "scored", score: Number(score) };
}
