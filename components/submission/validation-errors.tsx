/** Why a bundle was rejected: the first validation errors, each with its file and JSON path. */
import type { SubmissionDetail } from "@/lib/queries/types";
import { ColumnHeaders } from "@/components/common/column-headers";
import { plural } from "@/components/common/format";
import { ScrollTable } from "@/components/common/scroll-table";
import { codeClass, rowClass, tableClass, tdClass, theadClass } from "@/components/common/styles";

export function ValidationErrors({ validation }: { validation: NonNullable<SubmissionDetail["validation"]> }) {
  const shown = validation.firstErrors.slice(0, 20);
  const warnings = Object.entries(validation.warningCounts);
  return (
    <div className="space-y-3">
      <p className="text-sm">
        The validator found {plural(validation.errors, "error")} and {plural(validation.warnings, "warning")}.
        {validation.errors > shown.length ? ` The first ${shown.length} errors are listed.` : ""}
      </p>
      {shown.length > 0 ? (
        <ScrollTable label="Validation error table">
          <table className={`${tableClass} min-w-[40rem]`}>
            <caption className="sr-only">Validation errors</caption>
            <thead className={theadClass}>
              <tr>
                <ColumnHeaders labels={["Code", "Where", "Message"]} />
              </tr>
            </thead>
            <tbody>
              {shown.map((e, i) => (
                <tr key={i} className={rowClass}>
                  <th scope="row" className={`${tdClass} font-normal`}>
                    <span className={codeClass}>{e.code}</span>
                  </th>
                  <td className={`${tdClass} font-mono text-xs break-all`}>
                    {e.file}
                    {e.path ? <span className="block text-slate-600 dark:text-slate-400">{e.path}</span> : null}
                  </td>
                  <td className={tdClass}>{e.message}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      ) : null}
      {warnings.length > 0 ? (
        <p className="text-sm text-slate-700 dark:text-slate-300">
          Warnings by code:{" "}
          {warnings.map(([code, n], i) => (
            <span key={code}>
              {i > 0 ? ", " : ""}
              <span className={codeClass}>{code}</span> × {n}
            </span>
          ))}
        </p>
      ) : null}
    </div>
  );
}
