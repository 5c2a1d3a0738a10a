/** Presentational table cells: rank with tie marker, score with its interval (and a small interval bar), pass^k, cost figures, badges. */
import type { ReactNode } from "react";
import type { LeaderboardEntry, ScoreCell } from "@/lib/queries/types";
import { FLAG_KIND_LABELS, type IntegrityFlagKind } from "@/lib/scoring/integrity-flags";
import { fmtInterval, fmtScore, pct } from "./format";

export function RankCell({ rank, tiedWith }: { rank: number; tiedWith: number }) {
  if (tiedWith <= 1) return <span>{rank}</span>;
  return (
    <span title={`Tied with ${tiedWith - 1} other${tiedWith === 2 ? "" : "s"}`}>
      <i aria-hidden="true">=</i>
      {rank}
      <span className="sr-only"> (tied)</span>
    </span>
  );
}

function CiBar({ cell }: { cell: ScoreCell }) {
  const lo = pct(cell.ciLow);
  const hi = pct(cell.ciHigh);
  return (
    <span aria-hidden="true" className="lb-bar">
      <i style={{ left: `${lo.toFixed(1)}%`, width: `${Math.max(hi - lo, 1.5).toFixed(1)}%` }} />
      <b style={{ left: `${pct(cell.score).toFixed(1)}%` }} />
    </span>
  );
}

/** "—" for a value that is not there, with its reason for screen readers. */
export function Missing({ reason }: { reason: string }) {
  return (
    <span className="lb-na" title={reason[0]!.toUpperCase() + reason.slice(1)}>
      —<span className="sr-only">{reason}</span>
    </span>
  );
}

/**
 * `85.2 ±4.0` where the interval is symmetric, `85.2 [81.0, 89.1]` where it is not; "—" when the
 * capability was not submitted. On phones the interval goes under the score, to keep the column narrow.
 */
export function ScoreCiCell({ cell, bar = false, partial = false }: { cell: ScoreCell | undefined; bar?: boolean; partial?: boolean }) {
  if (!cell || !cell.submitted) return <Missing reason="not submitted" />;
  // The interval is read as it shows ("85.2 [81.0, 89.1]"); the column's title says it is the 95% CI.
  const numbers = (
    <span className="lb-sc">
      <b>{fmtScore(cell.score)}</b>
      <small>{fmtInterval(cell.score, cell.ciLow, cell.ciHigh)}</small>
    </span>
  );
  const score = bar ? (
    <span className="lb-with-bar">
      {numbers}
      <CiBar cell={cell} />
    </span>
  ) : (
    numbers
  );
  return partial ? <PartialOverall>{score}</PartialOverall> : score;
}

/** An overall marked as partial: not every capability was submitted. */
function PartialOverall({ children }: { children: ReactNode }) {
  return (
    <span className="inline-flex flex-col items-end gap-0.5">
      {children}
      <span
        className="rounded bg-amber-100 px-1 text-[11px] font-medium leading-4 text-amber-900 dark:bg-amber-900/50 dark:text-amber-200"
        title="Partial: not every capability was submitted, so this overall is not comparable"
      >
        partial overall
      </span>
    </span>
  );
}

/**
 * pass^k in the pass^k view: the share of items solved in all k trials. "—" for an entry of one
 * trial (pass^1 says nothing of consistency, and would flatter it beside pass^4) or a capability
 * not submitted.
 */
export function PassKCell({ value, k, submitted = true, partial = false }: { value: number | null | undefined; k: number; submitted?: boolean; partial?: boolean }) {
  if (!submitted) return <Missing reason="not submitted" />;
  if (value === null || value === undefined) return <Missing reason="one trial: pass^k needs two trials or more" />;
  const cell = (
    <span className="whitespace-nowrap" title={`pass^${k}: the weighted share of items solved in all ${k} trials`}>
      <span className="font-medium">{fmtScore(value)}</span>
      <span className="sr-only">{` (pass^${k}: solved in all ${k} trials)`}</span>
    </span>
  );
  return partial ? <PartialOverall>{cell}</PartialOverall> : cell;
}

const BADGES = [
  {
    key: "verified",
    label: "verified",
    title: "Replay verified: every tool call was replayed against the benchmark's tools",
    className: "bg-emerald-100 text-emerald-900 dark:bg-emerald-900/50 dark:text-emerald-200",
  },
  {
    key: "partial",
    label: "partial",
    title: "Partial: not every capability was submitted",
    className: "bg-amber-100 text-amber-900 dark:bg-amber-900/50 dark:text-amber-200",
  },
  {
    key: "demo",
    label: "demo",
    title: "Demo entry generated for this site, not a real agent",
    className: "bg-violet-100 text-violet-900 dark:bg-violet-900/50 dark:text-violet-200",
  },
] as const;

/** An integrity flag: its kinds written out (the entry page says what triggered each). */
function FlaggedBadge({ flags }: { flags: readonly IntegrityFlagKind[] }) {
  const kinds = flags.map((k) => FLAG_KIND_LABELS[k]).join(", ");
  const title = `Integrity flags: ${kinds}. The entry's page says what triggered each.`;
  return (
    <li title={title} data-badge="flagged" className="lb-flag">
      {`⚑ flagged: ${kinds}`}
    </li>
  );
}

export function Badges({ badges, flags = [] }: { badges: LeaderboardEntry["badges"]; flags?: readonly IntegrityFlagKind[] }) {
  const shown = BADGES.filter((b) => badges[b.key]);
  if (!shown.length && !flags.length) return null;
  return (
    <ul className="lb-badges" aria-label="Badges">
      {flags.length ? <FlaggedBadge flags={flags} /> : null}
      {shown.map((b) => (
        <li key={b.key} title={b.title} className={b.className}>
          {b.label}
        </li>
      ))}
    </ul>
  );
}

/** A cost or latency figure (its text never breaks: the formats use no-break spaces), "—" when the bundle did not report it. */
export function CostCell({ value, text, title }: { value: number | null; text: string; title?: string }) {
  if (value === null) return <Missing reason="not reported" />;
  return title ? <span title={title}>{text}</span> : text;
}
