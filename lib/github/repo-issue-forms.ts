/**
 * Which of a repository's issue forms (`.github/ISSUE_TEMPLATE/*.yml`) are submission forms, read
 * through the GitHub API: a form with a field that maps to the ZIP link (by its id or its label,
 * as SUBMISSION_FORM in issue-form.ts knows them: ours, VAKRA's current and older forms) makes its
 * labels submission labels, and the labels of its mapped fields headings the body parser reads.
 * So a benchmark repository's own form (VAKRA's `benchmark-output-submission`, a fork's renamed
 * label) works with no setting.
 *
 * The forms are someone else's files: each is read with a size cap, parsed as YAML with alias
 * expansion bounded, and checked for shape; one that cannot be read or used is named with the
 * reason, never fatal, and the others are still read.
 */
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { GitHubApiError, type GitHubPort, type RepoRef } from "./github-client";
import { normaliseHeading, SUBMISSION_FORM, type SubmissionField } from "./issue-form";

/** Where GitHub looks for issue forms (on the default branch). */
export const ISSUE_TEMPLATE_DIR = ".github/ISSUE_TEMPLATE";

/**
 * Forms read per repository at most, and bytes per form: GitHub's own forms are a few KiB, and a
 * repository with more forms than this is not a benchmark's submission setup.
 */
export const FORM_LIMITS = { files: 50, bytes: 64 * 1024 } as const;

/** A form whose issues are submissions. */
export interface SubmissionIssueForm {
  path: string;
  labels: string[];
  /** Normalised headings (the form's field labels) and the field each is read as. */
  headings: [string, SubmissionField][];
  /** Labels of our required fields the form has no field for: its issues are asked for them. */
  missing: string[];
}

/** A form not used, and why (for the worker's log and /admin). */
export interface IssueFormNotice {
  path: string;
  problem: string;
}

/** `unused` keeps the form's labels: a label that other forms use too marks no submission. */
export type IssueFormReading = { kind: "submission"; form: SubmissionIssueForm } | { kind: "unused"; notice: IssueFormNotice; labels: string[] } | { kind: "other" };

/** What a repository's forms come to. */
export interface RepoIssueForms {
  forms: SubmissionIssueForm[];
  /** Forms not used (unreadable, no ZIP-link field, no labels), and usable forms with missing fields. */
  notices: IssueFormNotice[];
}

const FIELD_TYPES = new Set(["input", "textarea", "dropdown", "checkboxes"]);

const FormSchema = z.object({
  name: z.string().max(500).optional(),
  // GitHub takes an array or one comma-separated string.
  labels: z
    .union([z.array(z.string().max(200)).max(100), z.string().max(5_000)])
    .optional()
    .transform((l) => (l === undefined ? [] : (typeof l === "string" ? l.split(",") : l).map((s) => s.trim()).filter(Boolean))),
  body: z
    .array(
      z.looseObject({
        type: z.string().max(50),
        id: z.string().max(200).optional(),
        attributes: z.looseObject({ label: z.string().max(1_000).optional() }).optional(),
      }),
    )
    .max(200),
});

const quote = (s: string) => JSON.stringify(s.length > 60 ? `${s.slice(0, 60)}…` : s);

/** The field an issue form's item is read as, by its id or its label; undefined when none. */
function fieldOf(id: string | undefined, label: string | undefined): SubmissionField | undefined {
  const heading = label === undefined ? undefined : normaliseHeading(label);
  for (const [field, spec] of Object.entries(SUBMISSION_FORM) as [SubmissionField, (typeof SUBMISSION_FORM)[SubmissionField]][]) {
    if (id !== undefined && (spec.id === id || spec.otherIds.includes(id))) return field;
    if (heading && [spec.label, ...spec.aliases].some((l) => normaliseHeading(l) === heading)) return field;
  }
  return undefined;
}

/** Reads one issue form's text: a submission form, a form named as not used, or none of ours. */
export function readIssueForm(path: string, text: string): IssueFormReading {
  const unused = (problem: string, labels: string[] = []): IssueFormReading => ({ kind: "unused", notice: { path, problem }, labels });
  if (text.length > FORM_LIMITS.bytes) return unused(`not read: ${text.length} characters, at most ${FORM_LIMITS.bytes} are read`);
  const deep = nestingProblem(text);
  if (deep) return unused(`not read: ${deep}`);
  let raw: unknown;
  try {
    // Aliases bounded: a "billion laughs" form cannot expand without limit.
    raw = parseYaml(text, { maxAliasCount: 50, prettyErrors: false });
  } catch (err) {
    const message = (err instanceof Error ? err.message : String(err)).split("\n")[0]!.slice(0, 200);
    return unused(`not valid YAML: ${message}`);
  }
  const parsed = FormSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return unused(`not an issue form: at ${issue.path.length ? issue.path.join(".") : "the top"}: ${issue.message}`);
  }
  const { labels, body } = parsed.data;
  const headings: [string, SubmissionField][] = [];
  const found = new Set<SubmissionField>();
  let zipLabel: string | undefined;
  for (const item of body) {
    if (!FIELD_TYPES.has(item.type)) continue;
    const label = item.attributes?.label;
    const field = fieldOf(item.id, label);
    if (!field || found.has(field)) continue;
    found.add(field);
    // GitHub renders an answer under its label: that label is the heading the parser reads.
    if (label !== undefined && normaliseHeading(label) !== "") headings.push([normaliseHeading(label), field]);
    if (field === "zipUrl") zipLabel = label ?? item.id ?? "";
  }
  if (zipLabel === undefined) {
    if (labels.length === 0) return { kind: "other" };
    return unused(`labels ${labels.map(quote).join(", ")}, but no ZIP-link field (expected a field with id ${[SUBMISSION_FORM.zipUrl.id, ...SUBMISSION_FORM.zipUrl.otherIds].map(quote).join(" or ")}, or labelled ${quote(SUBMISSION_FORM.zipUrl.label)} or ${quote(SUBMISSION_FORM.zipUrl.aliases[0]!)}): its issues are not read as submissions`, labels);
  }
  if (labels.length === 0) return unused(`has a ZIP-link field (${quote(zipLabel)}) but no labels: its issues cannot be told from others; add labels to the form or set GITHUB_SUBMISSION_LABELS`);
  const missing = (Object.keys(SUBMISSION_FORM) as SubmissionField[]).filter((f) => SUBMISSION_FORM[f].required && !found.has(f)).map((f) => SUBMISSION_FORM[f].label);
  return { kind: "submission", form: { path, labels, headings, missing } };
}

/** How deep a form may nest (blocks, `- ` items, `[`/`{`); GitHub's forms nest five or six levels. */
const MAX_NESTING = { indent: 120, depth: 32 } as const;

/**
 * Why the text nests too deeply to be parsed safely, or undefined. The YAML parser recurses per
 * level: thousands of levels in a few KiB overflow its stack (and, under a source-mapped runtime,
 * exhaust memory building the error), so the depth is measured first, in one linear pass.
 */
export function nestingProblem(text: string): string | undefined {
  let flow = 0;
  let quote: string | undefined;
  let lineNo = 1;
  let lineStart = true;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (lineStart) {
      lineStart = false;
      const lead = /^[ \t]*((?:[-?:][ \t]+)*)/.exec(text.slice(i, i + MAX_NESTING.indent + 2))![0];
      if (lead.length > MAX_NESTING.indent) return `line ${lineNo} is indented or nested more than ${MAX_NESTING.indent} columns deep`;
      if ((lead.match(/[-?:]/g) ?? []).length > MAX_NESTING.depth) return `line ${lineNo} opens more than ${MAX_NESTING.depth} nested items`;
    }
    if (c === "\n") {
      lineNo++;
      lineStart = true;
      // A quoted scalar may span lines; a plain "#" comment ends with the line.
      continue;
    }
    if (quote) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === "#" && (i === 0 || /\s/.test(text[i - 1]!))) {
      const end = text.indexOf("\n", i);
      i = end < 0 ? text.length : end - 1;
    } else if (c === "[" || c === "{") {
      if (++flow > MAX_NESTING.depth) return `line ${lineNo} nests more than ${MAX_NESTING.depth} brackets`;
    } else if ((c === "]" || c === "}") && flow > 0) flow--;
  }
  return undefined;
}

/** Whether a folder entry is an issue form (YAML; `config.yml` is the template chooser's settings). */
export function isIssueFormFile(name: string): boolean {
  return /\.ya?ml$/i.test(name) && !/^config\.ya?ml$/i.test(name);
}

/** A cached read of the forms folder, to go on from with `loadRepoIssueForms`. */
export interface IssueFormsSnapshot {
  /** The folder listing's ETag: an unchanged folder costs one 304 (free of GitHub's rate limit). */
  etag: string | null;
  /** Each form's reading, by path and blob sha: only changed files are fetched again. */
  files: Map<string, { sha: string; reading: IssueFormReading }>;
  result: RepoIssueForms;
}

/**
 * Reads the repository's issue forms through the API, going on from `previous`: the listing is
 * asked for with its ETag, and only files whose sha changed are fetched. A folder that does not
 * exist means no forms. GitHub's failures (listing or a file) throw: the caller keeps what it had.
 */
export async function loadRepoIssueForms(gh: GitHubPort, repo: RepoRef, previous?: IssueFormsSnapshot): Promise<IssueFormsSnapshot> {
  const listing = await gh.listFolder(repo, ISSUE_TEMPLATE_DIR, previous?.etag ? { etag: previous.etag } : {});
  if (listing.notModified && previous) return previous;
  const entries = listing.notModified ? [] : listing.entries;
  const forms = entries.filter((e) => e.type === "file" && isIssueFormFile(e.name)).sort((a, b) => a.path.localeCompare(b.path));
  const files = new Map<string, { sha: string; reading: IssueFormReading }>();
  const notices: IssueFormNotice[] = [];
  for (const entry of forms.slice(0, FORM_LIMITS.files)) {
    const known = previous?.files.get(entry.path);
    if (known && known.sha === entry.sha) {
      files.set(entry.path, known);
      continue;
    }
    let reading: IssueFormReading;
    if (entry.size > FORM_LIMITS.bytes) reading = { kind: "unused", notice: { path: entry.path, problem: `not read: ${entry.size} bytes, at most ${FORM_LIMITS.bytes} are read` }, labels: [] };
    else reading = await readFormFile(gh, repo, entry.path);
    files.set(entry.path, { sha: entry.sha, reading });
  }
  if (forms.length > FORM_LIMITS.files) notices.push({ path: ISSUE_TEMPLATE_DIR, problem: `${forms.length} forms; the first ${FORM_LIMITS.files} (by name) were read` });
  // A label that another form puts on its issues too ("needs-triage" on the bug form) would make
  // those issues submissions: only a submission form's own labels count.
  const shared = new Set([...files.values()].flatMap(({ reading }) => (reading.kind === "unused" ? reading.labels.map((l) => l.toLowerCase()) : [])));
  const submissionForms: SubmissionIssueForm[] = [];
  for (const { reading } of files.values()) {
    if (reading.kind === "unused") notices.push(reading.notice);
    if (reading.kind !== "submission") continue;
    const { path, missing } = reading.form;
    const labels = reading.form.labels.filter((l) => !shared.has(l.toLowerCase()));
    if (labels.length === 0) {
      notices.push({ path, problem: `its labels (${reading.form.labels.map(quote).join(", ")}) are all on other forms too: its issues cannot be told from theirs; give it a label of its own` });
      continue;
    }
    submissionForms.push({ ...reading.form, labels });
    if (missing.length) notices.push({ path, problem: `read as a submission form, but it has no field for ${missing.map(quote).join(", ")}: its issues are asked for them` });
  }
  return { etag: listing.notModified ? null : listing.etag, files, result: { forms: submissionForms, notices } };
}

/** One form file read and classified; a file that vanished or is unfit is named, GitHub failing throws. */
async function readFormFile(gh: GitHubPort, repo: RepoRef, path: string): Promise<IssueFormReading> {
  try {
    return readIssueForm(path, (await gh.readTextFile(repo, path, FORM_LIMITS.bytes)).text);
  } catch (err) {
    if (err instanceof GitHubApiError && err.status !== 404) throw err;
    return { kind: "unused", notice: { path, problem: `not read: ${(err instanceof Error ? err.message : String(err)).slice(0, 200)}` }, labels: [] };
  }
}
