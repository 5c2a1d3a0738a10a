/**
 * POST /admin/actions: approve, reject (with a reason), rescore, withdraw or restore a
 * submission. Each is a review action of lib/submissions/review.ts (a state move with its audit
 * row, the same one a GitHub slash command takes) and is mirrored on the submission's GitHub
 * issue after the response.
 *
 * Reject and withdraw, and the approval of an entry with integrity flags, act only with
 * `confirm` set to the state the maintainer confirmed them in (the confirmation section of /admin sends it): a post without it changes nothing and
 * leads to that confirmation; a post whose state has moved on since is refused.
 */
import { after } from "next/server";
import { pageDb } from "@/lib/queries/db";
import { isFlagged } from "@/lib/queries/integrity";
import { submissionState } from "@/lib/queries/submission";
import { mirrorSubmission } from "@/lib/submissions/github-intake";
import { applyReviewAction, needsConfirmation, reviewAction } from "@/lib/submissions/review";
import { TransitionError } from "@/lib/submissions/transitions";
import { requestIsMaintainer, sameOrigin, seeOther } from "../auth";
import { confirmHref } from "../confirm-href";

export const dynamic = "force-dynamic";

export async function POST(request: Request): Promise<Response> {
  if (!sameOrigin(request)) return new Response("cross-site request refused", { status: 403 });
  if (!(await requestIsMaintainer(request))) return seeOther("/admin?error=session");
  const form = await request.formData().catch(() => null);
  const id = Number(form?.get("submissionId"));
  const action = String(form?.get("action") ?? "");
  const reason = String(form?.get("reason") ?? "").trim().slice(0, 2000);
  // Only codes go into the URL: /admin shows a fixed message for each (messages.ts).
  if (!Number.isInteger(id) || id <= 0) return seeOther("/admin?error=no-submission");
  const review = reviewAction(action, reason);
  if (!review) return seeOther("/admin?error=unknown-action");
  const db = await pageDb();
  // An entry with integrity flags is approved only once the maintainer has seen them.
  if (needsConfirmation(review.name, review.name === "approve" && (await isFlagged(db, id)))) {
    const confirmed = String(form?.get("confirm") ?? "");
    if (!confirmed) return seeOther(confirmHref(review.name, id));
    if (confirmed !== (await submissionState(db, id))) return seeOther("/admin?error=changed");
  }
  try {
    await applyReviewAction(db, id, review, { actor: "maintainer (admin page)", at: new Date() });
  } catch (err) {
    if (!(err instanceof TransitionError)) throw err;
    return seeOther("/admin?error=transition");
  }
  after(() => mirrorSubmission(db, id).catch((err: unknown) => console.error(`mirroring submission ${id} to GitHub: ${err instanceof Error ? err.message : String(err)}`)));
  return seeOther(`/admin?done=${encodeURIComponent(`${action} #${id}`)}`);
}
