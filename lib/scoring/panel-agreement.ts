/**
 * How often a run's judge panel agreed, per capability (docs/judges.md "Panels"): of the panel
 * grades at least two members judged, the share where they did not disagree. Grades a maintainer
 * decided before the judges were asked, and grades fewer than two members could judge, are not
 * compared. Stored with the run in its manifest.
 */
import type { ItemResult } from "./item-result";

export interface CapabilityAgreement {
  /** Panel grades at least two judges judged. */
  compared: number;
  /** Of those, the ones the judges agreed on. */
  agreed: number;
}

export interface PanelAgreement {
  agreement: Record<string, CapabilityAgreement>;
  /** Panel grades the judges disagreed on. */
  disputed: number;
  /** Panel grades a maintainer decided (before the judges were asked, or since). */
  decided: number;
}

/** The run's panel agreement, or null when no item was graded by a panel. */
export function panelAgreement(items: readonly Pick<ItemResult, "capability" | "panel">[]): PanelAgreement | null {
  const agreement: Record<string, CapabilityAgreement> = {};
  let disputed = 0;
  let decided = 0;
  let any = false;
  for (const item of items) {
    for (const r of item.panel ?? []) {
      any = true;
      if (r.decided) decided++;
      if (r.disputed) disputed++;
      if (r.members.filter((m) => m.outcome !== "unjudged").length < 2) continue;
      const a = (agreement[item.capability] ??= { compared: 0, agreed: 0 });
      a.compared++;
      if (!r.disputed) a.agreed++;
    }
  }
  return any ? { agreement, disputed, decided } : null;
}

/** The agreement rate in [0, 1], or null when nothing was compared. */
export const agreementRate = (a: CapabilityAgreement): number | null => (a.compared > 0 ? a.agreed / a.compared : null);
