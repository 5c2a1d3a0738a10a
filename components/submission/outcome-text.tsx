/** An item's outcome in the one vocabulary (lib/scoring/outcome.ts), with an icon so colour is never the only signal. */
import { outcomeOf, type OutcomeVerdict } from "@/lib/scoring/outcome";
import type { ItemSummary } from "@/lib/queries/types";

const TONE: Record<OutcomeVerdict, string> = {
  passed: "text-emerald-700 dark:text-emerald-400",
  partial: "text-amber-700 dark:text-amber-300",
  lost: "text-red-700 dark:text-red-400",
};
const ICON: Record<OutcomeVerdict, string> = { passed: "✓", partial: "◐", lost: "✗" };

type Scored = Pick<ItemSummary, "status" | "stage" | "score">;

export function OutcomeText({ item }: { item: Scored }) {
  const o = outcomeOf(item);
  return (
    <span className={TONE[o.verdict]} title={o.term.meaning}>
      <span aria-hidden="true">{ICON[o.verdict]} </span>
      {o.text}
    </span>
  );
}

/** The score an item counts as, 0–1 (0 for every outcome that counts 0). */
export function ItemScore({ item }: { item: Scored }) {
  const o = outcomeOf(item);
  return <span className={`tabular-nums ${TONE[o.verdict]}`}>{Number.isInteger(o.counts) ? o.counts : o.counts.toFixed(2)}</span>;
}
