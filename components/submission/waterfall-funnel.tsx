/**
 * Where the items ended in the waterfall (policy → exact match → correctness → groundedness), as
 * a horizontal bar chart drawn on the server. Exact-match passes are a subset shown on their own:
 * those items skipped the correctness judge.
 */
import type { Funnel } from "@/lib/queries/types";
import { formatPercent } from "@/components/common/format";
import { outcomeTerm, UNSCORED_STATUSES } from "@/lib/scoring/outcome";
import { ScrollTable } from "@/components/common/scroll-table";

interface Bar {
  key: string;
  label: string;
  hint: string;
  value: number;
  bar: string;
}

export function funnelBars(f: Funnel): Bar[] {
  return [
    { key: "notScored", label: "Missing or errors", hint: `${[...UNSCORED_STATUSES, "missing_turn" as const].map((s) => outcomeTerm(s).label.toLowerCase()).join(", ")}; each counts 0`, value: f.notScored, bar: "bg-slate-400 dark:bg-slate-500" },
    { key: "policy", label: "Lost at policy", hint: "a tool call broke the item's tool-use policy", value: f.policy, bar: "bg-rose-500 dark:bg-rose-400" },
    { key: "correctness", label: "Lost at correctness", hint: "the answer is not the ground-truth answer", value: f.correctnessFailed, bar: "bg-orange-500 dark:bg-orange-400" },
    { key: "groundedness", label: "Lost at groundedness", hint: "right or not, the answer is not supported by the tool responses", value: f.groundednessFailed, bar: "bg-amber-400 dark:bg-amber-300" },
    { key: "passed", label: "Passed", hint: "scored above 0 at the stage that decided", value: f.passed, bar: "bg-emerald-600 dark:bg-emerald-400" },
  ];
}

function FunnelRow({ bar: b, max, total }: { bar: Bar; max: number; total: number }) {
  return (
    <tr className="border-b border-slate-100 last:border-0 dark:border-slate-800/80">
      <th scope="row" className="w-36 px-3 py-2 text-left align-middle font-medium sm:w-56">
        {b.label}
        <span className="block text-xs font-normal text-slate-500 dark:text-slate-400">{b.hint}</span>
      </th>
      <td className="px-3 py-2 align-middle">
        <div aria-hidden="true" className="h-5 w-full rounded-sm bg-slate-100 dark:bg-slate-800">
          {b.value > 0 ? <div className={`h-full rounded-sm ${b.bar}`} style={{ width: `${(100 * b.value) / max}%` }} /> : null}
        </div>
        <span className="sr-only">{formatPercent(b.value, total)}</span>
      </td>
      <td className="w-20 px-3 py-2 text-right align-middle whitespace-nowrap tabular-nums sm:w-28">
        <span className="font-semibold">{b.value.toLocaleString("en-US")}</span>{" "}
        <span className="text-xs text-slate-500 dark:text-slate-400" aria-hidden="true">
          {formatPercent(b.value, total)}
        </span>
      </td>
    </tr>
  );
}

export function WaterfallFunnel({ funnel }: { funnel: Funnel }) {
  const bars = funnelBars(funnel);
  const max = Math.max(1, funnel.total);
  return (
    <div className="space-y-3">
      <ScrollTable label="Funnel chart">
        <table className="w-full border-collapse text-sm">
          <caption className="sr-only">Number of items that ended at each stage of the waterfall, out of {funnel.total}.</caption>
          <thead className="sr-only">
            <tr>
              <th scope="col">Ended at</th>
              <th scope="col">Share of items</th>
              <th scope="col">Items</th>
            </tr>
          </thead>
          <tbody>
            {bars.map((b) => (
              <FunnelRow key={b.key} bar={b} max={max} total={funnel.total} />
            ))}
          </tbody>
          <tfoot className="border-t border-slate-300 dark:border-slate-700">
            <FunnelRow
              bar={{
                key: "exact",
                label: "Exact match passed",
                hint: "every ground-truth tool response was reproduced; skips the correctness judge",
                value: funnel.exactPassed,
                bar: "border-2 border-emerald-600 bg-[repeating-linear-gradient(135deg,transparent_0_4px,rgb(5_150_105/0.35)_4px_8px)] dark:border-emerald-400",
              }}
              max={max}
              total={funnel.total}
            />
          </tfoot>
        </table>
      </ScrollTable>
      <p className="text-xs text-slate-600 dark:text-slate-400">
        {funnel.total.toLocaleString("en-US")} items in all. Stages run in order: policy, exact tool response, correctness, groundedness. Exact-match passes are also counted in the stage where they ended.
      </p>
    </div>
  );
}
