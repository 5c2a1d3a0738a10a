/**
 * The link to a repository's submission issue form, prefilled. GitHub opens an issue form from
 * `/<owner>/<repo>/issues/new?template=<file>` and fills its fields from query parameters named
 * by the fields' ids (inputs, textareas and dropdowns; checkboxes cannot be prefilled), plus
 * `title` and `labels`. The ids are those of our template (issue-form.ts#SUBMISSION_FORM).
 */
import { parseRepoRef, type RepoRef } from "./github-client";
import { SUBMISSION_FORM, SUBMISSION_LABEL, type SubmissionField } from "./issue-form";

/** Our template's file name under `.github/ISSUE_TEMPLATE/`. */
export const ISSUE_TEMPLATE_FILE = "leaderboard_submission.yml";

/** The form's default title, as the template sets it. */
export const ISSUE_TITLE_PREFIX = "[Submission]: ";

/** Fields that take a prefilled text (checkboxes cannot). */
export type PrefillField = Exclude<SubmissionField, "checklist">;

/**
 * Each prefilled value is cut to this many characters, so the link stays well inside the
 * length browsers and GitHub accept (about 8 KB) whatever a caller passes.
 */
export const MAX_PREFILL_CHARS = 1_000;

/** Control characters other than tab and newline have no place in a form field. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

const clean = (s: string) => s.replace(CONTROL, "").trim().slice(0, MAX_PREFILL_CHARS);

/**
 * The issue form's URL on github.com, or null when `repository` is not a valid owner/name
 * (a hostile or mistyped GITHUB_REPOSITORY never becomes a link elsewhere). Empty values are
 * left out; the title is the template's, followed by the agent name when there is one.
 */
export function issueFormUrl(repository: RepoRef | string, prefill: Partial<Record<PrefillField, string>> = {}): string | null {
  const repo = typeof repository === "string" ? parseRepoRef(repository) : parseRepoRef(`${repository.owner}/${repository.repo}`);
  if (!repo) return null;
  const q = new URLSearchParams({ template: ISSUE_TEMPLATE_FILE, title: `${ISSUE_TITLE_PREFIX}${clean(prefill.agentName ?? "")}`, labels: SUBMISSION_LABEL });
  for (const [field, value] of Object.entries(prefill) as [string, string | undefined][]) {
    const v = clean(value ?? "");
    if (v && field !== "checklist" && Object.hasOwn(SUBMISSION_FORM, field)) q.set(SUBMISSION_FORM[field as PrefillField].id, v);
  }
  return `https://github.com/${encodeURIComponent(repo.owner)}/${encodeURIComponent(repo.repo)}/issues/new?${q.toString()}`;
}
