/**
 * A repository's submission labels: GITHUB_SUBMISSION_LABELS (or the defaults), our own label,
 * and the labels of the repository's own submission forms (lib/github/repo-issue-forms.ts), so
 * an issue written with VAKRA's form, or a fork's, is read with no setting.
 *
 * The forms are read again at the start of each polling and reconcile pass (a conditional
 * request: an unchanged folder costs one 304, free of GitHub's rate limit) and otherwise when
 * older than FORMS_MAX_AGE_MS, never per delivery. While GitHub cannot be asked, what was last
 * read holds (at first: the configured labels alone). Forms that cannot be used are named in the
 * log and stored as one audit-log entry per change (action GITHUB_FORMS_ACTION), which /admin shows.
 */
import { and, desc, eq } from "drizzle-orm";
import { auditLog } from "../../db/schema";
import type { GitHubPort, RepoRef } from "../github/github-client";
import { SUBMISSION_LABEL, type SubmissionField } from "../github/issue-form";
import { loadRepoIssueForms, type IssueFormNotice, type IssueFormsSnapshot } from "../github/repo-issue-forms";
import { GITHUB_FORMS_ACTION } from "../queries/github-forms";
import { retryBusy, writeTx } from "./db-busy";
import type { GitHubIntake } from "./github-intake";

/** How old a read of the forms may be before a delivery's handling reads them again. */
export const FORMS_MAX_AGE_MS = 10 * 60_000;

/** What marks an issue of a repository as a submission, and the headings its forms add. */
export interface SubmissionLabels {
  labels: string[];
  /** Normalised headings of the repository's forms and the field each is read as. */
  headings: Map<string, SubmissionField>;
}

interface FormsState {
  snapshot?: IssueFormsSnapshot;
  /** When the forms were last asked for (wall clock); 0: never. */
  askedAt: number;
  loading?: Promise<void>;
  /** What was last logged and stored, so an unchanged result is not again. */
  reported?: string;
}

/** Per GitHub connection and repository: a worker keeps one connection for its life. */
const states = new WeakMap<GitHubPort, Map<string, FormsState>>();

const fullName = (r: RepoRef) => `${r.owner}/${r.repo}`;

function stateOf(ctx: GitHubIntake, repo: RepoRef): FormsState {
  let byRepo = states.get(ctx.gh);
  if (!byRepo) states.set(ctx.gh, (byRepo = new Map()));
  const key = fullName(repo).toLowerCase();
  let state = byRepo.get(key);
  if (!state) byRepo.set(key, (state = { askedAt: 0 }));
  return state;
}

/**
 * The repository's submission labels. `refresh`: ask GitHub whether the forms changed (a pass's
 * start); otherwise only when they were never read or FORMS_MAX_AGE_MS ago.
 */
export async function submissionLabelsOf(ctx: GitHubIntake, repo: RepoRef, options: { refresh?: boolean } = {}): Promise<SubmissionLabels> {
  const state = stateOf(ctx, repo);
  if (options.refresh || state.askedAt === 0 || Date.now() - state.askedAt >= FORMS_MAX_AGE_MS) {
    state.loading ??= readForms(ctx, repo, state).finally(() => {
      state.loading = undefined;
    });
    await state.loading;
  }
  const labels = new Set([...ctx.settings.submissionLabels, SUBMISSION_LABEL]);
  const headings = new Map<string, SubmissionField>();
  for (const form of state.snapshot?.result.forms ?? []) {
    for (const l of form.labels) labels.add(l);
    for (const [h, f] of form.headings) if (!headings.has(h)) headings.set(h, f);
  }
  return { labels: [...labels], headings };
}

async function readForms(ctx: GitHubIntake, repo: RepoRef, state: FormsState): Promise<void> {
  state.askedAt = Date.now();
  let notices: IssueFormNotice[];
  try {
    const before = state.snapshot;
    state.snapshot = await loadRepoIssueForms(ctx.gh, repo, before);
    if (state.snapshot === before && state.reported !== undefined) return;
    notices = state.snapshot.result.notices;
  } catch (err) {
    // What was read before holds; said once per distinct failure.
    const problem = `the issue forms could not be read (${(err instanceof Error ? err.message : String(err)).slice(0, 300)}); ${state.snapshot ? "the labels read before are used" : "only the configured submission labels are used"}`;
    notices = [...(state.snapshot?.result.notices ?? []), { path: ".github/ISSUE_TEMPLATE", problem }];
  }
  const forms = state.snapshot?.result.forms ?? [];
  const summary = forms.length ? `${fullName(repo)}: submission forms ${forms.map((f) => `${f.path} (labels ${f.labels.join(", ")})`).join("; ")}` : `${fullName(repo)}: no submission form among the issue forms`;
  const text = [summary, ...notices.map((n) => `${n.path}: ${n.problem}`)].join("\n");
  if (text === state.reported) return;
  state.reported = text;
  ctx.log?.(summary);
  for (const n of notices) ctx.log?.(`${fullName(repo)}: issue form ${n.path}: ${n.problem}`);
  try {
    await storeFormNotices(ctx, repo, notices);
  } catch (err) {
    ctx.log?.(`${fullName(repo)}: the issue forms' notice was not stored: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Stores the forms' notices for /admin when they differ from the last stored for the repository
 * (several workers may each store one change once; the page shows the latest).
 */
async function storeFormNotices(ctx: GitHubIntake, repo: RepoRef, notices: readonly IssueFormNotice[]): Promise<void> {
  const actor = `github:${fullName(repo)}`;
  const reason = notices.length ? notices.map((n) => `${n.path}: ${n.problem}`).join("\n") : "every issue form is read";
  const [last] = await ctx.db.select({ reason: auditLog.reason }).from(auditLog).where(and(eq(auditLog.action, GITHUB_FORMS_ACTION), eq(auditLog.actor, actor))).orderBy(desc(auditLog.id)).limit(1);
  // Nothing to say and nothing said before: no entry at all.
  if (last ? last.reason === reason : notices.length === 0) return;
  const at = ctx.now();
  await retryBusy(() => writeTx(ctx.db, (tx) => tx.insert(auditLog).values({ at, actor, action: GITHUB_FORMS_ACTION, reason, details: { repo: fullName(repo), notices: notices.map((n) => ({ path: n.path, problem: n.problem })) } })));
}
