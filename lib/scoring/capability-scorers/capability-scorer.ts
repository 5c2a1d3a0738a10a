/**
 * A capability scorer: everything one kind of capability needs, in one place. The waterfall
 * scores VAKRA-style dialogues; the evaluators (qa, trajectory, report) score NVIDIA-style
 * dataset items. Loading the ground truth, reading and validating a bundle's outputs, and
 * scoring its items all dispatch through `registry.ts` by `capabilities[].scorer`: no other
 * module branches on the kind of a capability.
 */
import type { IndexedCapability } from "../../benchmark/capability-data";
import type { Benchmark, CapabilityData } from "../../benchmark/load-benchmark";
import type { CapabilitySpec } from "../../benchmark/spec";
import type { DiagnosticSink } from "../../formats/diagnostic";
import type { PredictedDialogue } from "../../formats/dialogue";
import type { FileSource } from "../../formats/eval-load";
import type { ReplayPort } from "../../replay/replay-port";
import type { Submission } from "../../validate/validate-bundle";
import type { Grader } from "../judges/grader";
import type { ItemResult, ScorerName } from "../item-result";

/** One ground-truth file of the capability, parsed. */
export interface GroundTruthFile {
  domain: string;
  sink: DiagnosticSink;
  value: unknown;
}

export interface LoadContext {
  /** The benchmark folder. */
  root: string;
  /** The capability's index in benchmark.yaml, for error keys. */
  index: number;
  spec: CapabilitySpec;
  /** `<domain>.json` files of the capability's ground-truth folder, sorted. */
  files: string[];
  /** Reads and parses one file; undefined (with the problem recorded) when it cannot. */
  read(file: string): Promise<GroundTruthFile | undefined>;
  /** Reads `input/<capability_dir>/<file>` if the benchmark has it (VAKRA keeps some fields only there). */
  readInput(file: string): Promise<GroundTruthFile | undefined>;
  /** Files the sink's errors as benchmark problems and its warnings as warnings. */
  collect(sink: DiagnosticSink): void;
  /** Counts a file the scorer read itself (an absolute path) into the benchmark's content hash. */
  note(file: string, bytes: Uint8Array | string): void;
  problems: string[];
}

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
  /** The submission being read: its buckets get the admitted dialogues that were kept. */
  submission: Submission;
  /** The uuids admitted for the capability so far (coverage), added to in place. */
  ids: Set<string>;
}

/**
 * readOutputs in two halves, for scorers whose outputs files can be read apart from each
 * other (on worker threads): `read` needs only the file; `admit` checks the records against
 * the ground truth and the files before it (duplicates), in bundle order.
 */
export interface RecordReader {
  /** The file's records; `keep` keeps each record's dialogue (scoring needs it, validation alone does not). */
  read(value: unknown, sink: DiagnosticSink, domain: string, keep: boolean): DialogueRead[];
  /** Returns whether any record it admitted carries its own usage. */
  admit(input: AdmitInput): boolean;
}

export interface ScoreContext {
  benchmark: Benchmark;
  /** The predictions of the trial being scored (a plain bundle's own). */
  submission: Submission;
  /** Which trial (1-based) its items belong to. */
  trial: number;
  grader: Grader;
  replay: ReplayPort;
  now: () => number;
}

/** One ground-truth item to score. */
export interface ItemTask {
  capability: string;
  uuid: string;
  /**
   * Items that can be scored apart, on a worker thread (score-threads.ts), share a shard: the
   * ground-truth file (domain) they come from. Absent: scored on the calling thread.
   */
  shard?: string;
  run(): Promise<ItemResult>;
}

/** An item's expected answer and calls, as the item view shows them where ground truth is public. */
export interface GroundTruthView {
  answer: unknown;
  calls: { name: string; arguments: Record<string, unknown> }[];
}

export interface CapabilityScorer {
  readonly name: ScorerName;
  /** Whether outputs may name other files of the capability folder (reports), so they are not stray files. */
  readonly outputsNameFiles: boolean;
  /** Whether its files are read as Python reads them (numbers and key order kept; lossless-json.ts). */
  readonly readsPythonValues: boolean;
  /** Reads the capability's ground truth; undefined when problems were recorded. */
  load(ctx: LoadContext): Promise<CapabilityData | undefined>;
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
  /** The capability's items to score, in ground-truth order. */
  tasks(cap: CapabilityData, ctx: ScoreContext): ItemTask[];
  /** An item's ground truth for the item view; null when the capability has no such item. */
  groundTruthView(cap: CapabilityData, uuid: string): GroundTruthView | null;
}
