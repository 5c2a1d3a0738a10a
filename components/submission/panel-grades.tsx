import { Tag } from "@/components/common/state-badge";
import { agreementRate, type PanelAgreement } from "@/lib/scoring/panel-agreement";
import type { PanelGradeView } from "@/lib/queries/types";
import { tableClass, tdClass, thClass, theadClass, rowClass } from "@/components/common/styles";

const gradeText = (outcome: string, score: number | null) => (outcome === "scored" ? `scored ${score?.toFixed(2) ?? "—"}` : outcome === "unjudged" ? "could not judge" : outcome);

/** An item's panel grades: each judge's public grade, whether they disagreed, and a maintainer's decision. */
export function PanelGrades({ grades }: { grades: PanelGradeView[] }) {
  return (
    <ul className="space-y-3 text-sm" aria-label="Judge panel grades">
      {grades.map((g, i) => (
        <li key={i} className="space-y-1">
          <p>
            <span className="font-medium">{g.kind}</span>: {gradeText(g.outcome, g.score)}{" "}
            {g.decided ? <Tag tone="good">decided by a maintainer</Tag> : g.disputed ? <Tag tone="warn">disputed: the judges disagree</Tag> : null}
          </p>
          {g.members.length ? (
            <ul className="list-disc pl-5 text-slate-700 dark:text-slate-300">
              {g.members.map((m, k) => (
                <li key={k}>
                  {m.judge}: {gradeText(m.outcome, m.score)} ({m.reason})
                </li>
              ))}
            </ul>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

/** A run's judge panel agreement per capability (stored with the run, in its manifest). */
export function PanelAgreementTable({ panel, capabilities }: { panel: PanelAgreement; capabilities: { id: string; label: string }[] }) {
  const rows = capabilities.filter((c) => panel.agreement[c.id]);
  return (
    <div className="space-y-2">
      <table className={tableClass}>
        <thead className={theadClass}>
          <tr>
            <th className={thClass}>Capability</th>
            <th className={thClass}>Grades compared</th>
            <th className={thClass}>Judges agreed</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((c) => {
            const a = panel.agreement[c.id]!;
            const rate = agreementRate(a);
            return (
              <tr key={c.id} className={rowClass} data-panel-agreement={c.id}>
                <td className={tdClass}>{c.label}</td>
                <td className={`${tdClass} tabular-nums`}>{a.compared}</td>
                <td className={`${tdClass} tabular-nums`}>{rate === null ? "—" : `${(rate * 100).toFixed(1)}% (${a.agreed})`}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <p className="text-sm text-slate-600 dark:text-slate-400">
        {`${panel.disputed} disputed grade(s), ${panel.decided} decided by a maintainer.`}
      </p>
    </div>
  );
}
