/**
 * What an evaluator (qa, trajectory, report) said: per evaluator capability on the detail
 * page, per item on the item page. Reasoning and evidence quote the reference (missing
 * facts, expected tools, reference field values), so they show only where the ground
 * truth is public.
 */
import type { EvaluationView, EvaluatorRow } from "@/lib/queries/types";
import { ColumnHeaders } from "@/components/common/column-headers";
import { formatFraction } from "@/components/common/format";
import { JsonBlock } from "@/components/common/json-block";
import { ScrollTable } from "@/components/common/scroll-table";
import { codeClass, rowClass, tableClass, tdClass, theadClass } from "@/components/common/styles";

const SCORER_LABEL: Record<string, string> = { qa: "Question answering", trajectory: "Trajectory", report: "Report" };
const SUB_SCORE_LABEL: Record<string, string> = { vlm_field: "VLM fields" };

const maybe = (x: number | null | undefined) => (x === null || x === undefined ? "—" : formatFraction(x));

export function EvaluatorTable({ rows }: { rows: EvaluatorRow[] }) {
  const subNames = [...new Set(rows.flatMap((r) => Object.keys(r.subScores)))].sort();
  return (
    <ScrollTable label="Evaluators per capability">
      <table className={`${tableClass} min-w-[30rem]`}>
        <caption className="sr-only">Capabilities scored by an evaluator, with scored items and sub-scores</caption>
        <thead className={theadClass}>
          <tr>
            <ColumnHeaders labels={["Capability", "Evaluator", "Items", "Scored", ...subNames.map((n) => SUB_SCORE_LABEL[n] ?? n)]} />
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.capability} className={rowClass}>
              <td className={tdClass}>{r.label}</td>
              <td className={tdClass}>{SCORER_LABEL[r.scorer] ?? r.scorer}</td>
              <td className={`${tdClass} tabular-nums`}>{r.nItems}</td>
              <td className={`${tdClass} tabular-nums`}>{r.nScored}</td>
              {subNames.map((n) => (
                <td key={n} className={`${tdClass} tabular-nums`}>
                  {maybe(r.subScores[n])}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}

interface FieldScoreView {
  path: string;
  method: string;
  status: string;
  score: number | null;
  reasoning: string;
  error?: string;
  referenceField?: string | null;
  fields?: Record<string, FieldScoreView>;
}

/** The report's field tree, flattened: one row per section and field, indented by depth. */
function flatten(f: FieldScoreView, depth = 0, out: { f: FieldScoreView; depth: number }[] = []) {
  out.push({ f, depth });
  for (const child of Object.values(f.fields ?? {})) flatten(child, depth + 1, out);
  return out;
}

function ReportFields({ root }: { root: FieldScoreView }) {
  const rows = flatten(root);
  return (
    <ScrollTable label="Report fields">
      <table className={`${tableClass} min-w-[36rem]`}>
        <caption className="sr-only">Each section and field of the report with its metric and score</caption>
        <thead className={theadClass}>
          <tr>
            <ColumnHeaders labels={["Field", "Metric", "Score", "Why"]} />
          </tr>
        </thead>
        <tbody>
          {rows.map(({ f, depth }) => (
            <tr key={f.path} className={rowClass}>
              <td className={tdClass} style={{ paddingLeft: `${0.75 + depth}rem` }}>
                {f.path.split(".").at(-1)}
              </td>
              <td className={`${tdClass} font-mono text-xs`}>{f.method}</td>
              <td className={`${tdClass} tabular-nums`}>{f.status === "scored" ? maybe(f.score) : f.status}</td>
              <td className={`${tdClass} text-xs`}>{f.error ?? f.reasoning}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}

/** The private half (reasoning, error, evidence) is null unless the benchmark shows its ground truth. */
export function EvaluationItem({ e }: { e: EvaluationView }) {
  const explain = e.reasoning !== null || e.error !== null || e.details !== null;
  const facts: [string, string][] = [
    ["Evaluator", SCORER_LABEL[e.kind] ?? e.kind],
    ["Status", e.status],
    ["Score", maybe(e.score)],
    ["Judge", e.judge ?? "—"],
    ["Latency", `${Math.round(e.latencyMs)} ms`],
    ...Object.entries(e.subScores).map(([n, v]): [string, string] => [SUB_SCORE_LABEL[n] ?? n, maybe(v)]),
  ];
  const sections = e.details?.sections as FieldScoreView | undefined;
  return (
    <div className="space-y-4 text-sm">
      <dl className="grid grid-cols-2 gap-x-4 gap-y-2 sm:grid-cols-3 lg:grid-cols-6">
        {facts.map(([term, value]) => (
          <div key={term}>
            <dt className="text-xs text-slate-600 dark:text-slate-400">{term}</dt>
            <dd className="font-medium tabular-nums break-all">{value}</dd>
          </div>
        ))}
      </dl>
      {e.reason ? <p className="break-words whitespace-pre-wrap">{e.reason}</p> : null}
      {explain ? (
        <>
          {e.error ? (
            <p>
              <span className="text-slate-600 dark:text-slate-400">Error: </span>
              {e.error}
            </p>
          ) : null}
          {e.reasoning ? <p className="break-words whitespace-pre-wrap">{e.reasoning}</p> : null}
          {sections ? <ReportFields root={sections} /> : null}
          {e.details ? (
            <details className="rounded-md border border-slate-200 p-3 dark:border-slate-800">
              <summary className="cursor-pointer font-semibold focus-visible:outline-2 focus-visible:outline-sky-600">Evidence ({e.kind})</summary>
              <div className="mt-3">
                <JsonBlock value={e.details} label="Evaluator evidence" />
              </div>
            </details>
          ) : null}
        </>
      ) : (
        <p className="text-slate-600 dark:text-slate-400">
          The evaluator&apos;s full reasoning and evidence quote the reference, which this benchmark keeps private; the <span className={codeClass}>score</span> and the reason above stand alone.
        </p>
      )}
    </div>
  );
}
