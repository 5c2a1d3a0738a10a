/** What the entry cost to run: latency per item, tokens and dollars as its bundle reported them (server component). */
import { Section } from "@/components/common/page-header";
import { plural } from "@/components/common/format";
import { fmtSeconds, fmtTokens, fmtUsd } from "@/components/leaderboard/format";
import { Row } from "@/components/submission/submission-meta";
import type { RunCost } from "@/lib/queries/entry-cost";

const unknown = <span className="text-slate-500 dark:text-slate-400">not reported</span>;

/** Renders nothing for a run without a cost summary (not finished, or scored before costs were recorded). */
export function CostSummary({ cost }: { cost: RunCost | null }) {
  if (!cost) return null;
  const { latency, usage } = cost;
  const tokens = usage?.totalTokens ?? null;
  // A bundle of k trials: tokens and dollars are one trial's (its totals divided by k).
  const perTrial = cost.trials ? ` (per trial, of ${cost.trials})` : "";
  return (
    <Section id="cost" title="Cost and latency" description="As the bundle reported them (duration_s per record, usage per record or in its metadata); never part of the score.">
      <dl className="divide-y divide-slate-100 dark:divide-slate-800">
        <Row term="Latency per item">
          {latency ? (
            <>
              median {fmtSeconds(latency.medianS)} · p95 {fmtSeconds(latency.p95S)} · mean {fmtSeconds(latency.meanS)}
              <span className="block text-xs text-slate-500 dark:text-slate-400">{`${latency.n.toLocaleString("en-US")} of ${plural(cost.items, "item")} report one`}</span>
            </>
          ) : (
            unknown
          )}
        </Row>
        <Row term={`Tokens${perTrial}`}>
          {tokens !== null ? (
            <>
              <span title={`${tokens.toLocaleString("en-US")} tokens`}>{fmtTokens(tokens)}</span>
              {usage?.inputTokens != null && usage.outputTokens != null ? (
                <span className="text-slate-600 dark:text-slate-400">{` (${fmtTokens(usage.inputTokens)} in, ${fmtTokens(usage.outputTokens)} out)`}</span>
              ) : null}
            </>
          ) : (
            unknown
          )}
        </Row>
        <Row term={`Cost${perTrial}`}>{usage?.costUsd != null ? fmtUsd(usage.costUsd) : unknown}</Row>
        {usage ? (
          <Row term="Usage from">
            {usage.source === "metadata" ? "the run's usage in its metadata" : `usage on ${usage.records.toLocaleString("en-US")} of ${plural(cost.items, "record")}`}
          </Row>
        ) : null}
      </dl>
    </Section>
  );
}
