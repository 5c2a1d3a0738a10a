/**
 * Unsupported answers: per waterfall capability, the share of scored items whose answer is
 * correct but not supported by the tool calls the agent made, as the environment replayed them.
 * An item counts when its last scored turn
 *
 * - passed the correctness judge and failed the groundedness judge (right, but nothing the
 *   replayed calls returned backs it up), or
 * - passed the correctness judge with no tool calls at all where the ground truth's turn makes
 *   some (right without looking: the groundedness judge may still pass it on the question's words).
 *
 * A turn that passed the exact stage reproduced the ground truth's own tool responses, so its
 * calls support whatever it says: never counted. The denominator is the capability's items
 * with status `scored` (missing items and errors are neither). Evaluator capabilities have no
 * groundedness stage (qa judges the answer alone, trajectory scores the calls themselves, report
 * has no calls): the check does not apply to them (null).
 */
import type { FlaggedItem, UnsupportedAnswers } from "./integrity-flags";
import type { ItemResult, WaterfallItemResult } from "./item-result";

/** Whether the ground truth's turn (after the environment's own leading calls) makes tool calls. */
export type ExpectsCalls = (capability: string, uuid: string, turnId: number) => boolean;

export function isUnsupportedAnswer(item: WaterfallItemResult, expectsCalls: ExpectsCalls): boolean {
  const last = item.turns.at(-1);
  if (item.status !== "scored" || !last || last.status !== "scored") return false;
  const verdict = (stage: string) => item.verdicts.find((v) => v.turnId === last.turnId && v.stage === stage)?.outcome;
  if (verdict("correctness") !== "pass") return false;
  if (verdict("groundedness") === "fail") return true;
  const calls = item.trace.find((t) => t.turnId === last.turnId)?.calls ?? [];
  return calls.length === 0 && expectsCalls(item.capability, item.uuid, last.turnId);
}

/**
 * The shares per capability (null for evaluator capabilities) and, for each capability above
 * the threshold, its unsupported items. `threshold` null: shares only, nothing flagged.
 */
export function unsupportedAnswers(
  capabilities: readonly { id: string; scorer: string }[],
  items: readonly ItemResult[],
  expectsCalls: ExpectsCalls,
  threshold: number | null,
): { shares: UnsupportedAnswers; flagged: Map<string, FlaggedItem[]> } {
  const shares: UnsupportedAnswers = { threshold, capabilities: {} };
  const flagged = new Map<string, FlaggedItem[]>();
  // A bundle of trials has an item per trial: each is named with its trial (a plain bundle's with none).
  const multi = items.some((i) => i.trial > 1);
  for (const cap of capabilities) {
    if (cap.scorer !== "waterfall") {
      shares.capabilities[cap.id] = null;
      continue;
    }
    let scored = 0;
    const unsupported: FlaggedItem[] = [];
    for (const item of items) {
      if (item.capability !== cap.id || item.scorer !== "waterfall" || item.status !== "scored") continue;
      scored++;
      if (isUnsupportedAnswer(item, expectsCalls)) unsupported.push({ capability: item.capability, uuid: item.uuid, ...(multi ? { trial: item.trial } : {}) });
    }
    const share = scored > 0 ? unsupported.length / scored : null;
    const isFlagged = threshold !== null && share !== null && share > threshold;
    shares.capabilities[cap.id] = { unsupported: unsupported.length, scored, share, flagged: isFlagged };
    if (isFlagged) flagged.set(cap.id, unsupported);
  }
  return { shares, flagged };
}
