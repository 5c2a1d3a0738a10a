/**
 * The entry page's integrity checks: each flag with what triggered it (and the items, linked),
 * then the unsupported-answer share per capability against the benchmark's threshold. Server
 * component; nothing here quotes a reference value or a canary.
 */
import Link from "next/link";
import { ColumnHeaders } from "@/components/common/column-headers";
import { formatPercent, plural } from "@/components/common/format";
import { Section } from "@/components/common/page-header";
import { ScrollTable } from "@/components/common/scroll-table";
import { Tag } from "@/components/common/state-badge";
import { linkClass, rowClass, tableClass, tdClass, theadClass } from "@/components/common/styles";
import { FLAG_KIND_LABELS } from "@/lib/scoring/integrity-flags";
import type { IntegrityFlagView, IntegrityView } from "@/lib/queries/types";
import { itemQuery } from "./item-query";
import { itemHref } from "./item-href";

const share = (part: number, whole: number) => (whole > 0 ? formatPercent(part, whole) : "—");

function FlagItems({ submissionId, flag, capabilityLabels }: { submissionId: number; flag: IntegrityFlagView; capabilityLabels: Record<string, string> }) {
  if (flag.items.length === 0) return null;
  const more = (flag.count ?? flag.items.length) - flag.items.length;
  return (
    <details className="mt-1 text-sm">
      <summary className="cursor-pointer text-slate-700 dark:text-slate-300">{`The ${plural(flag.count ?? flag.items.length, "item")}`}</summary>
      <ul className="mt-1 max-h-64 space-y-0.5 overflow-y-auto pl-4 font-mono text-xs">
        {flag.items.map((i) => (
          <li key={`${i.capability}/${i.uuid}/${i.trial ?? ""}`}>
            <Link href={itemHref(submissionId, i, itemQuery({ trial: i.trial }))} className={`${linkClass} break-all`}>
              {capabilityLabels[i.capability] ?? i.capability} · {i.uuid}
              {i.trial ? ` · trial ${i.trial}` : ""}
            </Link>
          </li>
        ))}
        {more > 0 ? <li className="font-sans text-slate-600 dark:text-slate-400">{`… and ${plural(more, "more item")}`}</li> : null}
      </ul>
    </details>
  );
}

function FlagList({ submissionId, flags, capabilityLabels }: { submissionId: number; flags: IntegrityFlagView[]; capabilityLabels: Record<string, string> }) {
  if (flags.length === 0) return <p className="text-sm">No integrity flag: no duplicate or near copy of an earlier entry, no unsupported-answer share above the threshold, no canary.</p>;
  return (
    <ul className="space-y-3" aria-label="Integrity flags">
      {flags.map((f, i) => (
        <li key={i} className="rounded-md border border-amber-300 bg-amber-50/60 px-3 py-2 dark:border-amber-700 dark:bg-amber-950/30" data-flag={f.kind}>
          <Tag tone="warn">⚑ {FLAG_KIND_LABELS[f.kind]}</Tag> <span className="text-sm">{f.message}</span>
          {f.other?.published ? (
            <p className="mt-1 text-sm">
              <Link href={`/submissions/${f.other.id}`} className={linkClass}>
                Entry #{f.other.id}: {f.other.agent}
              </Link>
            </p>
          ) : null}
          <FlagItems submissionId={submissionId} flag={f} capabilityLabels={capabilityLabels} />
        </li>
      ))}
    </ul>
  );
}

function SharesTable({ shares }: { shares: IntegrityView["unsupportedAnswers"] }) {
  return (
    <ScrollTable label="Unsupported answers per capability">
      <table className={`${tableClass} min-w-[28rem]`}>
        <caption className="sr-only">Per capability: scored items whose correct answer the replayed tool calls do not support</caption>
        <thead className={theadClass}>
          <tr>
            <ColumnHeaders labels={["Capability", "Unsupported", "Share", "Flag"]} />
          </tr>
        </thead>
        <tbody>
          {shares.capabilities.map((c) => (
            <tr key={c.id} className={rowClass}>
              <td className={tdClass}>{c.label}</td>
              {c.applies ? (
                <>
                  <td className={`${tdClass} tabular-nums`}>{`${c.unsupported} of ${c.scored}`}</td>
                  <td className={`${tdClass} tabular-nums font-semibold`}>{share(c.unsupported, c.scored)}</td>
                  <td className={tdClass}>{c.flagged ? <Tag tone="warn">⚑ above threshold</Tag> : <span className="text-slate-500 dark:text-slate-400">—</span>}</td>
                </>
              ) : (
                <td className={`${tdClass} text-slate-600 dark:text-slate-400`} colSpan={3}>
                  does not apply (scored by an evaluator, without a groundedness stage)
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}

export function IntegritySection({ submissionId, integrity, capabilityLabels }: { submissionId: number; integrity: IntegrityView | null; capabilityLabels: Record<string, string> }) {
  if (!integrity) return null;
  const threshold = integrity.unsupportedAnswers.threshold;
  const applies = integrity.unsupportedAnswers.capabilities.some((c) => c.applies);
  return (
    <Section
      id="integrity"
      title="Integrity"
      description="Checks a maintainer reviews before approving: answers and tool calls that repeat an entry received earlier (duplicates, and near copies: most items the same and every item scored the same), correct answers the replayed tool calls do not support, and the benchmark's canary strings in submitted text. A flag is a reason to look, not a verdict."
    >
      <FlagList submissionId={submissionId} flags={integrity.flags} capabilityLabels={capabilityLabels} />
      {applies ? (
        <>
          <h3 className="pt-2 text-base font-semibold">Unsupported answers</h3>
          <p className="max-w-3xl text-sm text-slate-600 dark:text-slate-400">
            {`Of each capability's scored items, those whose answer the correctness judge accepted but that the replayed tool calls do not back up: the groundedness judge failed it, or the agent made no tool call where the ground truth makes some. ${
              threshold === null ? "This benchmark flags no share." : `A share above ${formatPercent(threshold, 1)} is flagged.`
            }`}
          </p>
          <SharesTable shares={integrity.unsupportedAnswers} />
        </>
      ) : null}
    </Section>
  );
}
