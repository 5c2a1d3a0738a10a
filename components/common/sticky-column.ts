import { tdClass } from "./styles";

/**
 * The first column of a wide table that stays in view when a phone scrolls it sideways (for
 * the header cell and the row headers): an opaque background and a hairline edge.
 */
export const stickyColumnClass = "sticky left-0 z-10 max-w-40 bg-white shadow-[1px_0_0_0_rgb(148_163_184_/_0.4)] sm:max-w-72 dark:bg-slate-950";

/** A row's first cell (its `<th scope="row">`) in a StickyFirstColumnTable. */
export const stickyRowHeadClass = `${tdClass} ${stickyColumnClass} break-words`;
