/**
 * A benchmark's labelled judge cases (`calibration/*.jsonl`): one JSON object per line, each a
 * judge request a person has already decided, so `agentboard calibrate` can measure how often
 * a judge agrees. Read strictly: every problem names the file, the line, the JSON path and
 * what was expected, and a bad line fails that case, never the rest of the file.
 *
 *   {"id": "c-17", "stage": "correctness", "capability": "api_chaining",
 *    "question": "…", "reference": "42", "answer": "It is 42.", "label": "pass",
 *    "labelledBy": "maintainer@lab"}
 *
 * What a stage reads (anything else it does not read is refused, so a case never carries a
 * field that silently changes nothing):
 * - `correctness`: question, reference (the reference answer), answer. Label pass/fail.
 * - `groundedness`: question, answer, evidence (the tool outputs, oldest first). Label pass/fail.
 * - `qa`: question, reference, answer. Label a score in [0, 1], or pass/fail.
 * - `trajectory`: question, reference (the reference tool calls, as a dataset's
 *   `trajectory_ground_truth`), answer (the agent's tool calls, same shape). Label a score or pass/fail.
 * - `report_field`: question (the field's path as the benchmark's metrics tree names it, root
 *   key first: `report.Incident Summary.Description`), reference and answer
 *   (the field's reference and generated values). Label a score or pass/fail.
 *
 * Bounds (CALIBRATION_LIMITS): a file of at most 16 MiB, a line of at most 1,048,576 characters, 10,000
 * cases over all files, 64 files, 256 evidence strings per case.
 */
import { z } from "zod";
import { DiagnosticSink } from "./diagnostic";
import { readToolCalls } from "./eval-tool-calls";

export const CALIBRATION_STAGES = ["correctness", "groundedness", "qa", "trajectory", "report_field"] as const;
export type CalibrationStage = (typeof CALIBRATION_STAGES)[number];

/** The stages whose judge answers pass or fail (the waterfall's); the others answer a score in [0, 1]. */
export const PASS_FAIL_STAGES: readonly CalibrationStage[] = ["correctness", "groundedness"];

export const CALIBRATION_LIMITS = {
  fileBytes: 16 * 1024 * 1024,
  lineChars: 1024 * 1024,
  cases: 10_000,
  files: 64,
  evidence: 256,
} as const;

/** A person's decision: pass/fail, or a score in [0, 1]. */
export type CalibrationLabel = "pass" | "fail" | number;

export interface CalibrationCase {
  id: string;
  stage: CalibrationStage;
  capability: string;
  question: string;
  /** Absent where the stage reads none (groundedness); a list of calls for trajectory. */
  reference?: unknown;
  answer: unknown;
  evidence?: string[];
  label: CalibrationLabel;
  labelledBy: string;
  /** Where it was read: `calibration/<file>.jsonl` and its 1-based line. */
  file: string;
  line: number;
}

const text = (what: string) => z.string({ error: (iss) => (iss.input === undefined ? `${what} is required` : `expected ${what} as a string, found ${typeOf(iss.input)}`) });

const SCORE_LABEL = "expected a score label from 0 to 1";
const labelSchema = z.union([z.literal("pass"), z.literal("fail"), z.number().min(0, SCORE_LABEL).max(1, SCORE_LABEL)], {
  error: (iss) => (iss.input === undefined ? 'the label is required: "pass", "fail" or a score from 0 to 1' : `expected "pass", "fail" or a score from 0 to 1, found ${JSON.stringify(iss.input)?.slice(0, 40) ?? typeOf(iss.input)}`),
});

const caseSchema = z
  .object({
    id: text("the case id").trim().min(1, "expected a non-empty case id").max(200, "expected a case id of at most 200 characters"),
    stage: z.enum(CALIBRATION_STAGES, { error: () => `expected the stage as one of ${CALIBRATION_STAGES.map((s) => `"${s}"`).join(", ")}` }),
    capability: text("the capability id").min(1, "expected a capability id"),
    question: text("the question"),
    reference: z.unknown().optional(),
    answer: z.unknown().optional(),
    evidence: z.array(z.string({ error: (iss) => `expected each piece of evidence as a string, found ${typeOf(iss.input)}` }), { error: (iss) => `expected the evidence as a list of strings, found ${typeOf(iss.input)}` }).max(CALIBRATION_LIMITS.evidence, `expected at most ${CALIBRATION_LIMITS.evidence} pieces of evidence`).optional(),
    label: labelSchema,
    labelledBy: text("labelledBy (who decided the label)").trim().min(1, "expected who decided the label"),
  })
  .strict()
  .superRefine((c, ctx) => {
    const problem = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
    const reads = STAGE_READS[c.stage];
    for (const key of ["reference", "evidence"] as const) {
      if (c[key] !== undefined && !reads.includes(key)) problem(key, `the ${c.stage} judge does not read ${key === "reference" ? "a reference" : "evidence"}: remove it`);
      if (c[key] === undefined && reads.includes(key)) problem(key, `the ${c.stage} judge reads ${key === "reference" ? "a reference" : "evidence (a list of strings, possibly empty)"}: it is required`);
    }
    if (c.answer === undefined) problem("answer", "the answer is required");
    if (c.stage === "trajectory") {
      for (const key of ["reference", "answer"] as const) if (c[key] !== undefined && !Array.isArray(c[key])) problem(key, `expected the ${key === "reference" ? "reference" : "agent's"} tool calls as a list of {step, name, params}, found ${typeOf(c[key])}`);
    } else {
      for (const key of ["reference", "answer"] as const) if (c[key] !== undefined && !isAnswerValue(c[key])) problem(key, `expected a string, number, boolean or a list of them, found ${typeOf(c[key])}`);
    }
    if (typeof c.label === "number" && PASS_FAIL_STAGES.includes(c.stage)) problem("label", `the ${c.stage} judge answers pass or fail: label it "pass" or "fail", not a score`);
  });

const STAGE_READS: Record<CalibrationStage, readonly ("reference" | "evidence")[]> = {
  correctness: ["reference"],
  groundedness: ["evidence"],
  qa: ["reference"],
  trajectory: ["reference"],
  report_field: ["reference"],
};

function isAnswerValue(v: unknown): boolean {
  if (typeof v === "string" || typeof v === "boolean" || v === null) return true;
  if (typeof v === "number") return Number.isFinite(v);
  return Array.isArray(v) && v.every(isAnswerValue);
}

function typeOf(v: unknown): string {
  if (v === undefined) return "nothing";
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}

/** What is wrong with a list of tool calls, read as a dataset's are (eval-tool-calls.ts), each message led by its JSON path. */
function toolCallProblems(raw: unknown[], path: string): string[] {
  const sink = new DiagnosticSink("calibration");
  readToolCalls(raw, sink, path);
  return sink.items.filter((d) => d.severity === "error").map((d) => `${d.path ?? path}: ${d.message}`);
}

/** A zod issue's path as a JSON path: `$.evidence[2]`. */
function jsonPath(path: readonly PropertyKey[]): string {
  return `$${path.map((seg) => (typeof seg === "number" ? `[${seg}]` : `.${String(seg)}`)).join("")}`;
}

/** One problem with a calibration file: where, and what was expected. */
export interface CalibrationProblem {
  file: string;
  line: number | null;
  message: string;
}

export const formatCalibrationProblem = (p: CalibrationProblem): string => `${p.file}${p.line !== null ? `:${p.line}` : ""}: ${p.message}`;

/**
 * Reads one calibration file's text: the cases it holds and the problems of its bad lines.
 * `seen` holds the ids read so far (from every file): an id is a case's name in the report, so a
 * second case with it is refused, naming where the first one is.
 */
export function readCalibrationCases(file: string, bytes: Uint8Array, seen: Map<string, string> = new Map()): { cases: CalibrationCase[]; problems: CalibrationProblem[] } {
  const cases: CalibrationCase[] = [];
  const problems: CalibrationProblem[] = [];
  if (bytes.byteLength > CALIBRATION_LIMITS.fileBytes) {
    problems.push({ file, line: null, message: `the file is ${bytes.byteLength} bytes; a calibration file may hold at most ${CALIBRATION_LIMITS.fileBytes} bytes (split it)` });
    return { cases, problems };
  }
  let content: string;
  try {
    content = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    problems.push({ file, line: null, message: "the file is not valid UTF-8; expected one JSON object per line, UTF-8 encoded" });
    return { cases, problems };
  }
  const lines = content.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = i + 1;
    const raw = lines[i]!.replace(/\r$/, "");
    if (raw.trim() === "") continue;
    if (raw.length > CALIBRATION_LIMITS.lineChars) {
      problems.push({ file, line, message: `the line is ${raw.length} characters; a case may take at most ${CALIBRATION_LIMITS.lineChars}` });
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      problems.push({ file, line, message: `not JSON (${err instanceof Error ? err.message : String(err)}); expected one case as a JSON object on the line` });
      continue;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      problems.push({ file, line, message: `$: expected a case as a JSON object, found ${typeOf(value)}` });
      continue;
    }
    const parsed = caseSchema.safeParse(value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) problems.push({ file, line, message: `${jsonPath(issue.path)}: ${issue.message}` });
      continue;
    }
    const c = parsed.data;
    if (c.stage === "trajectory") {
      const bad = [...toolCallProblems(c.reference as unknown[], "$.reference"), ...toolCallProblems(c.answer as unknown[], "$.answer")];
      if (bad.length) {
        for (const message of bad) problems.push({ file, line, message });
        continue;
      }
    }
    const first = seen.get(c.id);
    if (first !== undefined) {
      problems.push({ file, line, message: `$.id: the case id "${c.id}" is used twice (first at ${first}); every case needs its own id` });
      continue;
    }
    seen.set(c.id, `${file}:${line}`);
    cases.push({
      id: c.id,
      stage: c.stage,
      capability: c.capability,
      question: c.question,
      ...(c.reference !== undefined ? { reference: c.reference } : {}),
      answer: c.answer,
      ...(c.evidence !== undefined ? { evidence: c.evidence } : {}),
      label: c.label,
      labelledBy: c.labelledBy,
      file,
      line,
    });
  }
  return { cases, problems };
}

/** Whether a label is a pass/fail decision (else a score). */
export const isPassFailLabel = (label: CalibrationLabel): label is "pass" | "fail" => label === "pass" || label === "fail";
