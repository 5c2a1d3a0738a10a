/**
 * Evaluation datasets in the shape NVIDIA's VSS agent uses: single-turn items
 * `{id, query, ground_truth, evaluation_method: [...], trajectory_ground_truth?}` and
 * multi-turn items whose `conversation` list expands to one item per turn, `{id}_{turn_id}`.
 * Unlike NAT, nothing is dropped silently: a duplicate id, a missing `evaluation_method`
 * or a turn without a query is an error naming its JSON path. The agent's outputs may sit
 * inline on an item or turn (see `eval-outputs.ts`).
 */
import { z } from "zod";
import { childPath, describeType, type DiagnosticSink } from "./diagnostic";
import { readOutputFields, renameKeys, type AgentOutputDraft } from "./eval-outputs";
import { readToolCalls, type ToolCallStep } from "./eval-tool-calls";
import type { TrajectoryEvent } from "./eval-trajectory";

export type { ToolCallStep };

export type EvalKind = "qa" | "trajectory" | "report";
export const EVAL_KINDS: readonly EvalKind[] = ["qa", "trajectory", "report"];

/** An earlier turn of the same conversation, as the agent saw it. */
export interface HistoryTurn {
  turnId: string;
  query: string;
  answer: string;
}

/** Where an expanded turn sits in its conversation. */
export interface ConversationPlace {
  id: string;
  turnId: string;
  /** 0-based position in the conversation. */
  index: number;
  turnCount: number;
}

/** A dataset item (or one turn of a conversation) before outputs and files are attached. */
export interface ItemDraft {
  id: string;
  query: string;
  /** The reference answer as text; for report items, the path of the reference JSON. */
  groundTruth: string | null;
  /** `ground_truth` as the dataset wrote it, when it is not a string (NAT reads 0 and false as missing). */
  groundTruthRaw?: unknown;
  /** The id as the dataset wrote it, when it is a number: NAT writes it back as one. */
  numericId?: number;
  methods: string[];
  trajectoryGroundTruth: ToolCallStep[] | null;
  /** `trajectory_ground_truth` as the dataset wrote it (what NAT's output shows). */
  trajectoryGroundTruthRaw?: unknown;
  conversation: ConversationPlace | null;
  /** The dataset record (or turn) as written, for `workflow_output.json`. */
  record?: Record<string, unknown>;
  inlineOutput: AgentOutputDraft | null;
  /** JSON path of the item (or turn) in the dataset file. */
  path: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

const methodsSchema = z
  .array(z.string({ error: "expected an evaluator id such as \"qa\"" }).trim().min(1, "expected a non-empty evaluator id"), {
    error: (iss) => (iss.input === undefined ? `"evaluation_method" is required: a list of evaluator ids such as ["qa", "trajectory"]` : `expected a list of evaluator ids, found ${describeType(iss.input)}`),
  })
  .min(1, "expected at least one evaluator id");

const idSchema = z.union([z.string().trim().min(1), z.number().finite()], { error: (iss) => `expected a non-empty string or number id, found ${iss.input === undefined ? "nothing" : describeType(iss.input)}` }).transform(String);

const groundTruthSchema = z.unknown().optional();

const entryBaseSchema = z
  .object({
    id: idSchema,
    query: z.string({ error: (iss) => `expected the query as a string, found ${describeType(iss.input)}` }).optional(),
    ground_truth: groundTruthSchema,
    trajectory_ground_truth: z.array(z.unknown(), { error: (iss) => `expected a list of {step, name, params} calls or null, found ${describeType(iss.input)}` }).nullable().optional(),
    conversation: z.array(z.unknown(), { error: (iss) => `expected a list of turns, found ${describeType(iss.input)}` }).optional(),
  })
  .loose();

const turnSchema = z
  .object({
    turn_id: z.union([z.string().trim().min(1), z.number().int()], { error: (iss) => `expected a non-empty string or integer turn_id, found ${describeType(iss.input)}` }).optional(),
    query: z.string({ error: (iss) => (iss.input === undefined ? "a turn needs a query" : `expected the query as a string, found ${describeType(iss.input)}`) }).refine((q) => q.trim() !== "", "a turn needs a non-empty query"),
    ground_truth: groundTruthSchema,
    evaluation_method: methodsSchema.optional(),
    trajectory_ground_truth: z.array(z.unknown(), { error: (iss) => `expected a list of {step, name, params} calls or null, found ${describeType(iss.input)}` }).nullable().optional(),
  })
  .loose();

/** Records zod's findings at their JSON paths. */
export function reportZodIssues(error: z.ZodError, sink: DiagnosticSink, base: string, record?: number): void {
  for (const issue of error.issues) {
    const path = issue.path.reduce<string>((acc, seg) => childPath(acc, typeof seg === "number" ? seg : String(seg)), base);
    sink.error("schema", issue.message, { path, ...(record !== undefined ? { record } : {}) });
  }
}

/** The reference answer as text: strings as given, other JSON values as JSON. */
function groundTruthText(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return JSON.stringify(v);
}

const nonString = (v: unknown) => v !== undefined && v !== null && typeof v !== "string";

/** The record keys a dataset uses for the question and the reference answer (NAT's `structure`). */
export interface DatasetKeys {
  question: string;
  answer: string;
  id: string;
  generatedAnswer: string;
  trajectory: string;
}

export const DEFAULT_DATASET_KEYS: DatasetKeys = { question: "query", answer: "ground_truth", id: "id", generatedAnswer: "generated_answer", trajectory: "intermediate_steps" };

const keyPairs = (k: DatasetKeys): [string, string][] => [
  [k.id, "id"],
  [k.question, "query"],
  [k.answer, "ground_truth"],
  [k.generatedAnswer, "generated_answer"],
  [k.trajectory, "intermediate_steps"],
];

/**
 * Reads a dataset's parsed JSON (an array of entries) into item drafts, multi-turn entries
 * expanded. Entries with errors are left out; the sink says why. `keys` name the question and
 * answer fields of single-turn entries (turns always use query and ground_truth, as VSS reads them).
 */
export function readEvalDataset(value: unknown, sink: DiagnosticSink, keys: DatasetKeys = DEFAULT_DATASET_KEYS): ItemDraft[] {
  if (!Array.isArray(value)) {
    sink.error("not_an_array", `expected a JSON array of dataset entries, found ${describeType(value)}`, { path: "$" });
    return [];
  }
  const drafts: ItemDraft[] = [];
  const firstPath = new Map<string, string>();
  value.forEach((raw, record) => {
    const base = `$[${record}]`;
    for (const d of readEntry(isObj(raw) ? renameKeys(raw, keyPairs(keys)) : raw, sink, base, record, isObj(raw) ? raw : undefined)) {
      const prior = firstPath.get(d.id);
      if (prior !== undefined) {
        sink.error("duplicate_id", `id "${d.id}" appears twice (first at ${prior}); every item and expanded turn needs its own id`, { record, path: d.conversation ? d.path : childPath(d.path, "id") });
        continue;
      }
      firstPath.set(d.id, d.path);
      drafts.push(d);
    }
  });
  return drafts;
}

function readEntry(raw: unknown, sink: DiagnosticSink, base: string, record: number, written?: Obj): ItemDraft[] {
  if (!isObj(raw)) {
    sink.error("entry_not_object", `expected a dataset entry object, found ${describeType(raw)}`, { record, path: base });
    return [];
  }
  const parsed = entryBaseSchema.safeParse(raw);
  if (!parsed.success) {
    reportZodIssues(parsed.error, sink, base, record);
    return [];
  }
  const e = parsed.data;
  const before = sink.errorCount;
  if (e.conversation !== undefined) return readConversation(raw, e.id, e.conversation, sink, base, record);

  if (e.query === undefined || e.query.trim() === "") sink.error("missing_query", `a single-turn entry needs a non-empty "query"`, { record, path: childPath(base, "query") });
  const methods = methodsSchema.safeParse(raw.evaluation_method);
  if (!methods.success) reportZodIssues(methods.error, sink, childPath(base, "evaluation_method"), record);
  const tgt = e.trajectory_ground_truth ? readToolCalls(e.trajectory_ground_truth, sink, childPath(base, "trajectory_ground_truth"), record) : null;
  const inlineOutput = readOutputFields(raw, sink, base, { record, answerKeys: ["generated_answer"] });
  if (sink.errorCount > before || !methods.success) return [];
  return [
    {
      id: e.id,
      ...(typeof raw.id === "number" ? { numericId: raw.id } : {}),
      query: e.query ?? "",
      groundTruth: groundTruthText(e.ground_truth),
      ...(nonString(e.ground_truth) ? { groundTruthRaw: e.ground_truth } : {}),
      methods: methods.data,
      trajectoryGroundTruth: tgt ?? null,
      ...(e.trajectory_ground_truth != null ? { trajectoryGroundTruthRaw: e.trajectory_ground_truth } : {}),
      conversation: null,
      inlineOutput: inlineOutput ?? null,
      path: base,
      ...(written ? { record: written } : {}),
    },
  ];
}

function readConversation(raw: Obj, id: string, turns: unknown[], sink: DiagnosticSink, base: string, record: number): ItemDraft[] {
  const convPath = childPath(base, "conversation");
  if (turns.length === 0) {
    sink.error("empty_conversation", "a multi-turn entry needs at least one turn in \"conversation\"", { record, path: convPath });
    return [];
  }
  // A top-level list other than the ["multi_turn"] marker is inherited by turns that have none.
  let inherited: string[] | null = null;
  if (raw.evaluation_method !== undefined) {
    const top = methodsSchema.safeParse(raw.evaluation_method);
    if (!top.success) {
      reportZodIssues(top.error, sink, childPath(base, "evaluation_method"), record);
      return [];
    }
    const own = top.data.filter((m) => m !== "multi_turn");
    if (own.length) inherited = own;
  }
  const out: ItemDraft[] = [];
  const seenTurns = new Map<string, string>();
  const before = sink.errorCount;
  turns.forEach((t, index) => {
    const path = childPath(convPath, index);
    if (!isObj(t)) {
      sink.error("turn_not_object", `expected a turn object, found ${describeType(t)}`, { record, path });
      return;
    }
    const parsed = turnSchema.safeParse(t);
    if (!parsed.success) {
      reportZodIssues(parsed.error, sink, path, record);
      return;
    }
    const turn = parsed.data;
    const turnId = turn.turn_id === undefined ? `turn_${index + 1}` : String(turn.turn_id);
    const prior = seenTurns.get(turnId);
    if (prior !== undefined) {
      sink.error("duplicate_turn_id", `turn_id "${turnId}" appears twice in this conversation (first at ${prior})`, { record, path: childPath(path, "turn_id") });
      return;
    }
    seenTurns.set(turnId, path);
    const methods = turn.evaluation_method ?? inherited;
    if (!methods) {
      sink.error("missing_evaluation_method", `"evaluation_method" is required on each turn (or on the entry, besides "multi_turn"): a list of evaluator ids such as ["qa"]`, { record, path: childPath(path, "evaluation_method") });
      return;
    }
    const tgt = turn.trajectory_ground_truth ? readToolCalls(turn.trajectory_ground_truth, sink, childPath(path, "trajectory_ground_truth"), record) : null;
    const inlineOutput = readOutputFields(t, sink, path, { record, answerKeys: ["generated_answer"] });
    if (tgt === undefined || inlineOutput === undefined) return;
    out.push({
      id: `${id}_${turnId}`,
      query: turn.query,
      groundTruth: groundTruthText(turn.ground_truth),
      ...(nonString(turn.ground_truth) ? { groundTruthRaw: turn.ground_truth } : {}),
      methods,
      trajectoryGroundTruth: tgt,
      ...(turn.trajectory_ground_truth != null ? { trajectoryGroundTruthRaw: turn.trajectory_ground_truth } : {}),
      conversation: { id, turnId, index, turnCount: turns.length },
      inlineOutput,
      path,
      record: t,
    });
  });
  // A conversation is run as a whole: one broken turn drops it all, so no turn loses its history.
  return sink.errorCount > before ? [] : out;
}

/** A report read for evaluation: the JSON object, or why it could not be had. */
export type LoadedReport =
  | {
      ok: true;
      value: Record<string, unknown>;
      source: string;
      /** The text a markdown report was read from: `--compat nat` reads it again by VSS's narrower rules (eval-report-markdown.ts). */
      markdown?: string;
    }
  | {
      ok: false;
      error: string;
      source: string;
      /** The object store (folder) has no file by that name: NAT's store raises here, and VSS leaves the item unscored. */
      notInStore?: boolean;
    };

/** The agent's output for one item, files read. */
export interface AgentOutput {
  answer: string | null;
  toolCalls: ToolCallStep[] | null;
  events: TrajectoryEvent[] | null;
  /** The trajectory as recorded, for `workflow_output.json`. */
  rawTrajectory?: unknown;
  timestamps: number[];
  report: LoadedReport | null;
}

/** One item to evaluate: a single-turn entry or one turn of a conversation. */
export interface EvalItem extends Omit<ItemDraft, "inlineOutput"> {
  /** Earlier turns of the conversation with the agent's answers (empty for single turns). */
  history: HistoryTurn[];
  /** null when the agent's output for this item is missing. */
  output: AgentOutput | null;
  /** The reference report, for items routed to a report evaluator. */
  referenceReport: LoadedReport | null;
  /** Earlier turns' top-level tool outputs, by turn id and tool name (what a `$ref` with `turn` reads). */
  priorToolResults?: Record<string, Record<string, unknown[]>>;
}

/** Drops reasoning the agent marked as such (`<agent-think>`, `<think>`) from an answer. */
export function stripAgentThinking(text: string): string {
  return text
    .replace(/<(agent-think|think|thinking)>[\s\S]*?<\/\1>/gi, "")
    .replace(/^[\s\S]*?<\/(agent-think|think)>/i, "")
    .trim();
}
