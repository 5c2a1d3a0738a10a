/**
 * Reads the body GitHub renders from the leaderboard submission issue form
 * (`.github/ISSUE_TEMPLATE/leaderboard_submission.yml`, ours or VAKRA's; VAKRA's older
 * `submission_template.yml` too): one `### <label>` section per field,
 * `_No response_` for an empty one, ```json fences around the metadata, `- [X]` checkboxes.
 *
 * The body is untrusted text: nothing here interprets markup (a `<script>` in the agent name
 * stays a string), work is linear in the body and the body's size is capped before it is
 * scanned, so a hostile issue cannot make parsing slow. Problems name the field by the label
 * shown in the form and say what was expected, so the bot can comment them back verbatim.
 */
import { z } from "zod";
import { locateJsonError } from "../formats/locate-json-error";
import { lineColumn } from "../formats/read-json";
import { isSafeText, UNSAFE_TEXT_EXPECTED } from "../formats/text-safety";
import { commentText } from "./comment-text";

/** The label our template puts on a submission issue. */
export const SUBMISSION_LABEL = "leaderboard-submission";

/**
 * Labels that mark an issue as a submission unless GITHUB_SUBMISSION_LABELS says otherwise:
 * ours, and VAKRA's: `benchmark-output-submission` (its current `leaderboard_submission.yml`)
 * and `agent-submission` (its older `submission_template.yml`, whose issues may still be open
 * after a repository moved to the current form). The repository's own issue forms add theirs
 * (repo-issue-forms.ts); these hold when the forms cannot be read.
 */
export const DEFAULT_SUBMISSION_LABELS: readonly string[] = [SUBMISSION_LABEL, "benchmark-output-submission", "agent-submission"];

export type SubmissionField =
  | "agentName"
  | "maintainer"
  | "contact"
  | "models"
  | "agentType"
  | "description"
  | "metadata"
  | "zipUrl"
  | "zipContents"
  | "checklist"
  | "notes";

export interface FormFieldSpec {
  /** The field's `id` in our issue template. */
  id: string;
  /** Other templates' ids for this field (VAKRA's), read when a repository's form is mapped. */
  otherIds: readonly string[];
  /** The label our form shows, which is also the `###` heading GitHub renders. */
  label: string;
  /**
   * Other headings read as this field: other benchmarks' templates (VAKRA's current and older
   * ones) and near spellings. Matched, like the label, ignoring case and punctuation.
   */
  aliases: readonly string[];
  required: boolean;
}

/** The form's fields in template order; the template test keeps the YAML in step with this. */
export const SUBMISSION_FORM: Readonly<Record<SubmissionField, FormFieldSpec>> = {
  agentName: { id: "agent_name", otherIds: [], label: "Agent name", aliases: ["Agent", "Name of the agent"], required: true },
  maintainer: { id: "maintainer", otherIds: [], label: "Maintainer or organisation", aliases: ["Maintainer", "Maintainer or organization", "Organisation", "Organization", "Team"], required: true },
  contact: { id: "contact", otherIds: [], label: "Maintainer contact", aliases: ["Contact", "Contact email", "Maintainer email", "Email"], required: false },
  models: { id: "models", otherIds: ["model"], label: "Models used", aliases: ["Model Used", "Model(s) Used", "Models", "Model", "LLM", "LLMs used"], required: true },
  agentType: { id: "agent_type", otherIds: [], label: "Agent type", aliases: ["Type of agent"], required: false },
  description: { id: "description", otherIds: [], label: "Description", aliases: ["Agent Description"], required: true },
  metadata: { id: "metadata", otherIds: [], label: "Metadata JSON", aliases: ["Metadata (JSON)", "Metadata"], required: false },
  zipUrl: { id: "zip_url", otherIds: ["zip_link"], label: "ZIP link", aliases: ["ZIP File Link", "Output ZIP File Link", "ZIP URL", "Bundle link", "Bundle URL", "Download link"], required: true },
  zipContents: { id: "zip_contents", otherIds: ["contents"], label: "ZIP contents", aliases: ["ZIP Contents Description", "Contents"], required: false },
  checklist: { id: "checklist", otherIds: ["validation"], label: "Checklist", aliases: ["Validation Checklist", "Submission checklist"], required: true },
  notes: { id: "notes", otherIds: ["additional_notes"], label: "Additional notes", aliases: ["Notes", "Additional information", "Comments"], required: false },
};

/** The checklist items of our template, in order. */
export const SUBMISSION_CHECKLIST: readonly string[] = [
  "The ZIP holds one folder per capability, each with one JSON file per domain",
  "I ran the validator on the bundle and it reported no errors",
  "The ZIP link is public and needs no sign-in",
  "The bundle holds no secrets, credentials or personal data",
  "The outputs come from the agent described here, run without access to the ground truth",
];

/** GitHub caps issue bodies at 65,536 characters; anything far larger is not a real form. */
export const DEFAULT_MAX_BODY_CHARS = 262_144;

const LIMITS = {
  agentName: 100,
  maintainer: 200,
  contact: 200,
  agentType: 100,
  notes: 5_000,
  model: 200,
  models: 20,
  description: 5_000,
  metadata: 20_000,
  zipUrl: 2_048,
  zipContents: 5_000,
} as const;

const NO_RESPONSE = "_No response_";
const REQUIRED = "expected a value (this field is required)";
// Text is refused for C0 controls except tab and newline, DEL, and the bidirectional overrides
// that can make a name display differently from what it is (text-safety.ts, as the validator).

const requiredText = (max: number) =>
  z
    .string({ error: REQUIRED })
    .trim()
    .min(1, { error: REQUIRED })
    .max(max, { error: `expected at most ${max} characters` })
    .refine(isSafeText, { error: UNSAFE_TEXT_EXPECTED });

const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max, { error: `expected at most ${max} characters` })
    .refine(isSafeText, { error: UNSAFE_TEXT_EXPECTED })
    .default("");

/** The agent name's rule, wherever a name comes from: the form's field and `submit --agent`. */
export const AgentNameSchema = requiredText(LIMITS.agentName).refine((s) => !s.includes("\n"), { error: "expected a single line" });

/** The longest agent name, in characters (after trimming). */
export const MAX_AGENT_NAME_CHARS = LIMITS.agentName;

/**
 * An agent name held to the form's limits: trimmed, 1 to MAX_AGENT_NAME_CHARS characters, one
 * line, no control or bidirectional-override characters. The first problem says what was expected.
 */
export function parseAgentName(value: string): { ok: true; name: string } | { ok: false; expected: string } {
  const r = AgentNameSchema.safeParse(value);
  return r.success ? { ok: true, name: r.data } : { ok: false, expected: r.error.issues[0]?.message ?? REQUIRED };
}

export const ChecklistItemSchema = z.object({ label: z.string(), checked: z.boolean() });
export type ChecklistItem = z.infer<typeof ChecklistItemSchema>;

/** What a submission issue says, checked. */
export const IssueSubmissionSchema = z.object({
  agentName: AgentNameSchema,
  maintainer: requiredText(LIMITS.maintainer).refine((s) => !s.includes("\n"), { error: "expected a single line" }),
  models: z
    .string({ error: REQUIRED })
    .transform(splitList)
    .pipe(
      z
        .array(
          z
            .string()
            .max(LIMITS.model, { error: `expected each model name to be at most ${LIMITS.model} characters` })
            .refine(isSafeText, { error: UNSAFE_TEXT_EXPECTED }),
        )
        .min(1, { error: "expected at least one model name (one per line or separated by commas)" })
        .max(LIMITS.models, { error: `expected at most ${LIMITS.models} models` }),
    ),
  contact: optionalText(LIMITS.contact).refine((s) => !s.includes("\n"), { error: "expected a single line" }),
  agentType: optionalText(LIMITS.agentType).refine((s) => !s.includes("\n"), { error: "expected a single line" }),
  description: requiredText(LIMITS.description),
  metadata: z
    .string()
    .optional()
    .transform((text, ctx): Record<string, unknown> => {
      const parsed = parseMetadata(text ?? "");
      if (typeof parsed === "string") {
        ctx.addIssue({ code: "custom", message: parsed });
        return z.NEVER;
      }
      return parsed;
    }),
  zipUrl: z
    .string({ error: REQUIRED })
    .trim()
    .min(1, { error: REQUIRED })
    .max(LIMITS.zipUrl, { error: `expected a URL of at most ${LIMITS.zipUrl} characters` })
    .transform((text, ctx) => {
      const url = parseHttpsUrl(text);
      if (typeof url === "string") {
        ctx.addIssue({ code: "custom", message: url });
        return z.NEVER;
      }
      return url.href;
    }),
  zipContents: optionalText(LIMITS.zipContents),
  notes: optionalText(LIMITS.notes),
  checklist: z
    .string({ error: "expected the checklist, with every item ticked" })
    .transform((text, ctx): ChecklistItem[] => {
      const items = parseChecklist(text);
      if (items.length === 0) {
        ctx.addIssue({ code: "custom", message: "expected the checklist, with every item ticked" });
        return z.NEVER;
      }
      const open = items.filter((i) => !i.checked).map((i) => `"${i.label}"`);
      if (open.length) {
        ctx.addIssue({ code: "custom", message: `expected every item to be ticked; not ticked: ${open.join(", ")}` });
        return z.NEVER;
      }
      return items;
    }),
});

export type IssueSubmission = z.infer<typeof IssueSubmissionSchema>;

/** One thing wrong with the form: `${label}: ${expected}`. */
export interface FormProblem {
  field: SubmissionField | "body";
  /** The label shown in the form (or "Issue body"). */
  label: string;
  /** What was expected, e.g. "expected an https URL". */
  expected: string;
}

export type IssueFormResult = { ok: true; submission: IssueSubmission } | { ok: false; problems: FormProblem[] };

export interface ParseIssueFormOptions {
  /** Longer bodies are refused unread. Default {@link DEFAULT_MAX_BODY_CHARS}. */
  maxBodyChars?: number;
  /**
   * More headings, normalised ({@link normaliseHeading}), read as a field: the labels of the
   * repository's own forms whose fields were mapped by id (repo-issue-forms.ts).
   */
  headings?: ReadonlyMap<string, SubmissionField>;
}

/** Parses and checks a submission issue's body. */
export function parseIssueForm(body: string | null | undefined, options: ParseIssueFormOptions = {}): IssueFormResult {
  const max = options.maxBodyChars ?? DEFAULT_MAX_BODY_CHARS;
  const text = body ?? "";
  if (text.length > max) {
    return { ok: false, problems: [{ field: "body", label: "Issue body", expected: `expected at most ${max} characters, got ${text.length}` }] };
  }
  const sections = splitSections(text);
  const raw: Partial<Record<SubmissionField, string>> = {};
  const seenAs: Partial<Record<SubmissionField, string>> = {};
  const learned = [...(options.headings ?? [])];
  for (const [field, spec] of Object.entries(SUBMISSION_FORM) as [SubmissionField, FormFieldSpec][]) {
    const headings = [...[spec.label, ...spec.aliases].map(normaliseHeading), ...learned.filter(([, f]) => f === field).map(([h]) => h)];
    const section = headings.map((h) => sections.get(h)).find((v) => v !== undefined);
    if (section === undefined) continue;
    raw[field] = section.value;
    seenAs[field] = section.heading;
  }
  const result = IssueSubmissionSchema.safeParse(raw);
  if (result.success) return { ok: true, submission: result.data };
  const problems: FormProblem[] = [];
  const seen = new Set<SubmissionField>();
  for (const issue of result.error.issues) {
    const field = issue.path[0] as SubmissionField;
    // One problem per field is enough for a submitter to act on.
    if (seen.has(field)) continue;
    seen.add(field);
    // Named as the submitter's form shows it (VAKRA's "ZIP File Link", or ours).
    problems.push({ field, label: seenAs[field] ?? SUBMISSION_FORM[field].label, expected: issue.message });
  }
  return { ok: false, problems };
}

/** "ZIP link: expected an https URL" */
export function describeProblem(problem: FormProblem): string {
  return `${problem.label}: ${problem.expected}`;
}

/**
 * The problems as a Markdown block for a bot comment. Text is escaped so that anything copied
 * from the issue (checklist item labels) cannot inject markup or mentions.
 */
export function renderFormProblems(problems: readonly FormProblem[], options: { max?: number } = {}): string {
  const max = options.max ?? 20;
  const lines = problems.slice(0, max).map((p) => `- **${escapeMarkdown(p.label)}**: ${escapeMarkdown(p.expected)}`);
  if (problems.length > max) lines.push(`- …and ${problems.length - max} more`);
  const intro =
    problems.length === 1
      ? "The submission form has a problem. Please edit the issue to fix it:"
      : "The submission form has problems. Please edit the issue to fix them:";
  return `${intro}\n\n${lines.join("\n")}\n`;
}

/** Escapes text for a GitHub comment: no HTML, no Markdown emphasis/links/code, no @-mentions (see comment-text.ts). */
export function escapeMarkdown(text: string): string {
  return commentText(text, { maxChars: 2_000 });
}

/** Values for {@link renderIssueFormBody}; omitted optional fields render as `_No response_`. */
export interface IssueFormValues {
  agentName: string;
  maintainer: string;
  models: string | readonly string[];
  description: string;
  /** An object is rendered as JSON; a string is used as is (to test malformed JSON). */
  metadata?: Record<string, unknown> | string;
  zipUrl: string;
  zipContents?: string;
  contact?: string;
  agentType?: string;
  notes?: string;
  /** Defaults to every item of {@link SUBMISSION_CHECKLIST}, ticked. */
  checklist?: readonly ChecklistItem[];
}

/** Renders a body the way GitHub renders our form: for tests, fixtures and the fake server. */
export function renderIssueFormBody(values: IssueFormValues): string {
  const orEmpty = (s: string | undefined) => (s && s.trim() ? s : NO_RESPONSE);
  const metadata =
    values.metadata === undefined
      ? NO_RESPONSE
      : "```json\n" + (typeof values.metadata === "string" ? values.metadata : JSON.stringify(values.metadata, null, 2)) + "\n```";
  const checklist = (values.checklist ?? SUBMISSION_CHECKLIST.map((label) => ({ label, checked: true })))
    .map((i) => `- [${i.checked ? "X" : " "}] ${i.label}`)
    .join("\n");
  const section: Record<SubmissionField, string> = {
    agentName: orEmpty(values.agentName),
    maintainer: orEmpty(values.maintainer),
    models: orEmpty(typeof values.models === "string" ? values.models : values.models.join("\n")),
    description: orEmpty(values.description),
    metadata,
    zipUrl: orEmpty(values.zipUrl),
    zipContents: orEmpty(values.zipContents),
    contact: orEmpty(values.contact),
    agentType: orEmpty(values.agentType),
    notes: orEmpty(values.notes),
    checklist,
  };
  return (Object.keys(SUBMISSION_FORM) as SubmissionField[]).map((f) => `### ${SUBMISSION_FORM[f].label}\n\n${section[f]}`).join("\n\n") + "\n";
}

/**
 * Splits a body into `### heading` sections, keyed by normalised heading; `_No response_`
 * becomes "". Headings inside code fences do not count; the first of two equal headings wins;
 * unknown headings are kept and simply never looked up (a `###` heading typed inside a
 * free-text answer therefore ends that answer).
 */
export function splitSections(body: string): Map<string, { heading: string; value: string }> {
  const lines = body.replace(/\r\n?/g, "\n").split("\n");
  const sections = new Map<string, { heading: string; value: string }>();
  let heading: string | undefined;
  let shown = "";
  let content: string[] = [];
  let fence: string | undefined;
  const flush = () => {
    if (heading === undefined || sections.has(heading)) return;
    const value = content.join("\n").trim();
    sections.set(heading, { heading: shown, value: value === NO_RESPONSE ? "" : value });
  };
  for (const line of lines) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker) {
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined;
    } else if (fence === undefined && line.startsWith("### ")) {
      flush();
      heading = normaliseHeading(line.slice(4));
      shown = line.slice(4).trim().slice(0, 100);
      content = [];
      continue;
    }
    content.push(line);
  }
  flush();
  return sections;
}

/** A heading as matched: letters and digits only, lower-cased ("Model(s) Used:" → "modelsused"). */
export function normaliseHeading(label: string): string {
  return label.normalize("NFKC").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
}

/** Model names: one per line or comma-separated, list bullets dropped, duplicates removed. */
function splitList(text: string): string[] {
  const names = text
    .split(/[\n,]/)
    .map((s) => s.trim().replace(/^[-*+]\s+/, "").trim())
    .filter((s) => s.length > 0);
  return [...new Set(names)];
}

/** The metadata object, or what was wrong with it. */
function parseMetadata(section: string): Record<string, unknown> | string {
  const json = stripFence(section).trim();
  if (json === "") return {};
  if (json.length > LIMITS.metadata) return `expected at most ${LIMITS.metadata} characters of JSON`;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    // V8's message quotes the input; the located position says more and echoes nothing.
    const problem = locateJsonError(json);
    if (!problem) return "expected valid JSON";
    const { line, column } = lineColumn(json, problem.offset);
    return `line ${line} column ${column}: expected ${problem.expected}`;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return `expected a JSON object, got ${value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`}`;
  }
  return value as Record<string, unknown>;
}

/** The inside of a fenced block (GitHub fences a `render: json` textarea), or the text itself. */
function stripFence(text: string): string {
  // Line by line rather than one regex: a backtracking regex over hostile whitespace is quadratic.
  const lines = text.trim().split("\n");
  const open = /^(`{3,}|~{3,})/.exec(lines[0] ?? "")?.[1];
  if (!open || lines.length < 2 || lines[lines.length - 1]!.trim() !== open) return text;
  return lines.slice(1, -1).join("\n");
}

function parseHttpsUrl(text: string): URL | string {
  const candidate = text.replace(/^<(.*)>$/, "$1");
  if (/\s/.test(candidate)) return "expected an https URL (a single link, no spaces)";
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return "expected an https URL";
  }
  // http is let through for loopback only: the downloader refuses it unless the test-only switch is on.
  const loopback = url.hostname === "127.0.0.1" || url.hostname === "localhost";
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) return "expected an https URL";
  if (url.username || url.password) return "expected an https URL without credentials";
  return url;
}

function parseChecklist(text: string): ChecklistItem[] {
  const items: ChecklistItem[] = [];
  for (const line of text.split("\n")) {
    const m = /^\s*[-*]\s+\[([ xX])\]\s+(.+)$/.exec(line);
    if (m) items.push({ label: m[2]!.trim(), checked: m[1] !== " " });
  }
  return items;
}
