import { Tag } from "@/components/common/state-badge";
import { FLAG_KIND_LABELS } from "@/lib/scoring/integrity-flags";
import type { ReviewRow } from "@/lib/queries/types";

/** An entry's integrity flags for maintainers: the kind, then what triggered it. */
export function FlagMessages({ flags }: { flags: ReviewRow["flags"] }) {
  return (
    <ul className="space-y-1 text-xs" aria-label="Integrity flags">
      {flags.map((f, i) => (
        <li key={i}>
          <Tag tone="warn">⚑ {FLAG_KIND_LABELS[f.kind]}</Tag> {f.message}
        </li>
      ))}
    </ul>
  );
}
