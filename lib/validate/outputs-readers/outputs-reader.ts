/**
 * An outputs reader: how one kind of capability's outputs files are read and admitted into a
 * submission (one entry per kind, as benchmark/capability-loaders/capability-loader.ts says).
 */
import type { IndexedCapability } from "../../benchmark/capability-data";
import type { DiagnosticSink } from "../../formats/diagnostic";
import type { PredictedDialogue } from "../../formats/dialogue";
import type { FileSource } from "../../formats/eval-load";
import type { StringPool } from "../../formats/string-pool";
import type { Submission } from "../validate-bundle";

/** One outputs file of a bundle, parsed, to validate and add to the submission. */
export interface OutputsFile {
  cap: IndexedCapability;
  domain: string;
  /** Path inside the bundle. */
  file: string;
  value: unknown;
  sink: DiagnosticSink;
  /** The bundle's files, for outputs that name other files (reports). */
  source: FileSource;
  /** The submission being read, added to in place. */
  submission: Submission;
}

/** One record of a waterfall outputs file as read on its own: what admitting it needs, and the dialogue when kept. */
export interface DialogueRead {
  record: number;
  uuid: string;
  status: "success" | "error";
  turnIds: number[];
  /** The prediction starts with the environment's own prelude call (get_data for this uuid). */
  prelude: boolean;
  /** The record carries its own usage (which wins over the metadata's). */
  usage: boolean;
  dialogue?: PredictedDialogue;
}

/** What admitting one file's records needs: the ground truth, where they were read, and the submission so far. */
export interface AdmitInput {
  cap: IndexedCapability;
  domain: string;
  /** Path inside the bundle. */
  file: string;
  reads: DialogueRead[];
  sink: DiagnosticSink;
  /** The validation's one copy of each long string (string-pool.ts), for the dialogues kept. */
  strings: StringPool;
  /** The submission being read: its buckets get the admitted dialogues that were kept. */
  submission: Submission;
  /** The uuids admitted for the capability so far (coverage), added to in place. */
  ids: Set<string>;
}

/**
 * readOutputs in two halves, for kinds whose outputs files can be read apart from each
 * other (on worker threads): `read` needs only the file; `admit` checks the records against
 * the ground truth and the files before it (duplicates), in bundle order.
 */
export interface RecordReader {
  /** The file's records; `keep` keeps each record's dialogue (scoring needs it, validation alone does not). */
  read(value: unknown, sink: DiagnosticSink, domain: string, keep: boolean): DialogueRead[];
  /** Returns whether any record it admitted carries its own usage. */
  admit(input: AdmitInput): boolean;
}

export interface OutputsReader {
  /** Whether outputs may name other files of the capability folder (reports), so they are not stray files. */
  readonly outputsNameFiles: boolean;
  /**
   * How outputs files are read: `records`, when they can be read apart from each other (on
   * worker threads; validation then counts the admitted ids itself), else `readOutputs` and
   * `predicted`.
   */
  readonly records?: RecordReader;
  /** Reads one outputs file into the submission; returns the number of records it held. */
  readOutputs?(file: OutputsFile): Promise<number>;
  /** The ids the submission predicted for the capability; undefined when it was not submitted. */
  predicted?(submission: Submission, capability: string): ReadonlySet<string> | undefined;
}
