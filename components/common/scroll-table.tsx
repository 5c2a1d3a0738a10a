import type { ReactNode } from "react";
import { ColumnHeaders } from "./column-headers";
import { stickyColumnClass } from "./sticky-column";
import { scrollClass, tableClass, theadClass, thClass } from "./styles";

/** A wide table in a labelled, keyboard-scrollable region (phones scroll it sideways). */
export function ScrollTable({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div role="region" aria-label={label} tabIndex={0} className={scrollClass}>
      {children}
    </div>
  );
}

/**
 * A list of submissions or events as a scrolling table whose first column stays in view on a
 * phone: `first` heads it, and each row's first cell is a `<th scope="row">` with `stickyRowHeadClass`.
 */
export function StickyFirstColumnTable({ label, caption, minWidth, first, columns, children }: { label: string; caption: string; minWidth: string; first: string; columns: readonly string[]; children: ReactNode }) {
  return (
    <ScrollTable label={label}>
      <table className={`${tableClass} ${minWidth}`}>
        <caption className="sr-only">{caption}</caption>
        <thead className={theadClass}>
          <tr>
            <th scope="col" className={`${thClass} ${stickyColumnClass}`}>
              {first}
            </th>
            <ColumnHeaders labels={columns} />
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </ScrollTable>
  );
}
