/**
 * What the worker last found wrong with the repository's issue forms (forms it cannot read as
 * submission forms), for the maintainers' page. The worker stores it as an audit-log entry when
 * it changes (lib/submissions/github-forms.ts); this reads the latest.
 */
import { desc, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { auditLog } from "../../db/schema";

/** The audit-log action of a change in what a repository's issue forms come to. */
export const GITHUB_FORMS_ACTION = "github:forms";

export interface GitHubFormNotice {
  at: string;
  repo: string;
  /** Each form not used (or used with fields missing), with the reason. */
  forms: { path: string; problem: string }[];
}

/** The latest notice, or null when the forms were last found all usable (or never read). */
export async function getGitHubFormNotice(db: Db): Promise<GitHubFormNotice | null> {
  const [row] = await db.select({ at: auditLog.at, details: auditLog.details }).from(auditLog).where(eq(auditLog.action, GITHUB_FORMS_ACTION)).orderBy(desc(auditLog.id)).limit(1);
  const details = row?.details as { repo?: unknown; notices?: unknown } | null | undefined;
  if (!row || !details || !Array.isArray(details.notices) || details.notices.length === 0) return null;
  // Written by the worker, but of someone else's files: shapes checked, lengths held.
  const forms = details.notices
    .filter((n): n is { path: string; problem: string } => typeof n === "object" && n !== null && typeof n.path === "string" && typeof n.problem === "string")
    .slice(0, 20)
    .map((n) => ({ path: n.path.slice(0, 200), problem: n.problem.slice(0, 500) }));
  return forms.length ? { at: row.at.toISOString(), repo: String(details.repo ?? "").slice(0, 200), forms } : null;
}
