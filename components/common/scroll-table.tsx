import type { ReactNode } from "react";
import { scrollClass } from "./styles";

/** A wide table in a labelled, keyboard-scrollable region (phones scroll it sideways). */
export function ScrollTable({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div role="region" aria-label={label} tabIndex={0} className={scrollClass}>
      {children}
    </div>
  );
}
