/**
 * POST /admin/flags/clear: a maintainer clears one integrity flag of an entry's current run,
 * with a reason (lib/submissions/review.ts `clearFlag`, audited). The form names the run it
 * was shown and the flag's key: a flag no longer raised on that run is refused, never another
 * cleared in its place. The issue's status comment is brought up to date after the response.
 */
import { after } from "next/server";
import { pageDb } from "@/lib/queries/db";
import { mirrorSubmission } from "@/lib/submissions/github-intake";
import { clearFlag } from "@/lib/submissions/review";
import { TransitionError } from "@/lib/submissions/transitions";
import { requestIsMaintainer, sameOrigin, seeOther } from "../../auth";
import type { ClearFlagErrorCode } from "../messages";

export const dynamic = "force-dynamic";

const back = (id: number, outcome: { done: "cleared" } | { error: ClearFlagErrorCode }) =>
  seeOther(`/admin/flags?id=${id}&${"done" in outcome ? `done=${outcome.done}` : `error=${outcome.error}`}`);

export async function POST(request: Request): Promise<Response> {
  if (!sameOrigin(request)) return new Response("cross-site request refused", { status: 403 });
  if (!(await requestIsMaintainer(request))) return seeOther("/admin?error=session");
  const form = await request.formData().catch(() => null);
  const id = Number(form?.get("submissionId"));
  const runId = Number(form?.get("runId"));
  const key = String(form?.get("key") ?? "").slice(0, 1000);
  const reason = String(form?.get("reason") ?? "").trim();
  if (!Number.isSafeInteger(id) || id <= 0) return seeOther("/admin?error=no-submission");
  if (!reason) return back(id, { error: "reason" });
  if (!Number.isSafeInteger(runId) || runId <= 0 || !key) return back(id, { error: "changed" });
  const db = await pageDb();
  try {
    await clearFlag(db, id, { runId, key, reason }, { actor: "maintainer (admin page)", at: new Date() });
  } catch (err) {
    if (!(err instanceof TransitionError)) throw err;
    return back(id, { error: "changed" });
  }
  after(() => mirrorSubmission(db, id).catch((err: unknown) => console.error(`mirroring submission ${id} to GitHub: ${err instanceof Error ? err.message : String(err)}`)));
  return back(id, { done: "cleared" });
}
