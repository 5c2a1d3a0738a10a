/**
 * The bundle's total work, bounded. Each file is held to its own limits, but a small bundle of
 * many files (32 trials × 12 files of 99,999 `{}`: 38.4 M errors) cost a minute within them
 * all. So validation reads files in bundle order and, before each, asks this whether a budget
 * is spent: the records of all files and trials together (limits.maxRecords) or the errors
 * found so far (limits.maxErrors). Once one is, no further file is read; the report says why
 * and how many files were left unread, since the counts are then a lower bound.
 */
import path from "node:path";
import type { Diagnostic, DiagnosticStore } from "../formats/diagnostic";
import type { ValidationLimits } from "./limits";

export interface WorkBudget {
  /** Counts a file's records; the file that takes the bundle past limits.maxRecords is an error. */
  countRecords(records: number, file: string): void;
  /** Before the `index`-th of the outputs files (0-based): true when reading stops here (recorded once, as an error). */
  stopBefore(index: number): boolean;
  /** Records counted so far. */
  readonly records: number;
  /** The error saying why validation stopped before reading every file, or undefined. */
  readonly stopped: Diagnostic | undefined;
}

const n = (x: number) => x.toLocaleString("en-US");

/** A budget for `files` outputs files; its errors go to `store`, the stop named at the bundle's name (never a server's path). */
export function createWorkBudget(limits: Pick<ValidationLimits, "maxRecords" | "maxErrors">, store: DiagnosticStore, location: string, files: number): WorkBudget {
  let records = 0;
  let overRecords = false;
  let stopped: Diagnostic | undefined;
  return {
    countRecords(count, file) {
      records += count;
      if (overRecords || records <= limits.maxRecords) return;
      overRecords = true;
      store.add({
        severity: "error",
        code: "too_many_records_in_bundle",
        file,
        message: `with this file the bundle's outputs files hold ${n(records)} records; at most ${n(limits.maxRecords)} are read in all files of all trials together (limits.maxRecords)`,
      });
    },
    stopBefore(index) {
      if (stopped !== undefined) return true;
      const why = overRecords
        ? `the bundle's records passed ${n(limits.maxRecords)} (limits.maxRecords)`
        : store.errorCount >= limits.maxErrors
          ? `${n(store.errorCount)} errors, the error budget being ${n(limits.maxErrors)} (limits.maxErrors)`
          : undefined;
      if (why === undefined) return false;
      const message = `validation stopped after ${why}: ${n(files - index)} of ${n(files)} outputs files were not read, so there may be more errors`;
      stopped = { severity: "error", code: "validation_stopped", file: path.basename(location), message };
      store.add(stopped);
      return true;
    },
    get records() {
      return records;
    },
    get stopped() {
      return stopped;
    },
  };
}
