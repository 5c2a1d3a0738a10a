/**
 * A capability loader: how one kind of capability's ground truth is read. Each kind of
 * capability (`capabilities[].scorer`: waterfall, qa, trajectory, report) has one entry in
 * each layer's registry, keyed alike: its loader here, its outputs reader in
 * validate/outputs-readers, its scorer in scoring/capability-scorers. No other module branches
 * on the kind of a capability.
 */
import type { DiagnosticSink } from "../../formats/diagnostic";
import type { CapabilityData } from "../capability-data";
import type { StringPool } from "../../formats/string-pool";
import type { CapabilitySpec } from "../spec";

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
  /** Counts a file the loader read itself (an absolute path) into the benchmark's content hash. */
  note(file: string, bytes: Uint8Array | string): void;
  problems: string[];
  /** The load's one copy of each long string (string-pool.ts): tool responses repeat across dialogues. */
  strings: StringPool;
}

/** An item's expected answer and calls, as the item view shows them where ground truth is public. */
export interface GroundTruthView {
  answer: unknown;
  calls: { name: string; arguments: Record<string, unknown> }[];
}

export interface CapabilityLoader {
  /** Whether its files are read as Python reads them (numbers and key order kept; lossless-json.ts): ground truth and outputs alike. */
  readonly readsPythonValues: boolean;
  /** Reads the capability's ground truth; undefined when problems were recorded. */
  load(ctx: LoadContext): Promise<CapabilityData | undefined>;
  /** An item's ground truth for the item view; null when the capability has no such item. */
  groundTruthView(cap: CapabilityData, uuid: string): GroundTruthView | null;
}
