/**
 * POST /admin/disputes/decide: a maintainer decides a disputed grade (lib/submissions/grade-disputes.ts
 * `decideDispute`: stored once per grade key, audited, every run that asked it re-aggregated).
 * Like the other admin actions it works without JavaScript, refuses cross-site posts and acts
 * only when confirmed: a post without `confirm` changes nothing and leads to the confirmation
 * on /admin/disputes; a post whose grade was decided meanwhile is refused.
 */
import { after } from "next/server";
import { pageDb } from "@/lib/queries/db";
import { mirrorSubmission } from "@/lib/submissions/github-intake";
import { decideDispute, MAX_DECISION_REASON } from "@/lib/submissions/grade-disputes";
import { TransitionError } from "@/lib/submissions/transitions";
import { requestIsMaintainer, sameOrigin, seeOther } from "../../auth";
import { decisionOfForm, type DisputeErrorCode } from "../messages";
import { disputeConfirmHref } from "../confirm-href";

export const dynamic = "force-dynamic";

const back = (outcome: { done: "decided" } | { error: DisputeErrorCode }) => seeOther(`/admin/disputes?${"done" in outcome ? `done=${outcome.done}&show=decided` : `error=${outcome.error}`}`);

export async function POST(request: Request): Promise<Response> {
  if (!sameOrigin(request)) return new Response("cross-site request refused", { status: 403 });
  if (!(await requestIsMaintainer(request))) return seeOther("/admin?error=session");
  const form = await request.formData().catch(() => null);
  const key = String(form?.get("key") ?? "");
  if (!/^[0-9a-f]{64}$/.test(key)) return back({ error: "no-dispute" });
  const outcome = String(form?.get("outcome") ?? "");
  const score = String(form?.get("score") ?? "");
  const decision = decisionOfForm(outcome, score);
  if (!decision) return back({ error: "decision" });
  // Decided only once confirmed: the confirmation names every entry whose scores move.
  if (String(form?.get("confirm") ?? "") !== "open") return seeOther(disputeConfirmHref(key, decision));
  const reason = String(form?.get("reason") ?? "").trim().slice(0, MAX_DECISION_REASON);
  const db = await pageDb();
  let moved;
  try {
    moved = await decideDispute(db, { key, ...decision, reason }, { actor: "maintainer (admin page)", at: new Date() });
  } catch (err) {
    if (!(err instanceof TransitionError)) throw err;
    return back({ error: err.message.includes("score") || err.message.includes("pass or fail") ? "decision" : "changed" });
  }
  // The entries' GitHub status comments show their scores: brought up to date after the response.
  const ids = [...new Set(moved.map((m) => m.submissionId))];
  after(async () => {
    for (const id of ids) await mirrorSubmission(db, id).catch((err: unknown) => console.error(`mirroring submission ${id} to GitHub: ${err instanceof Error ? err.message : String(err)}`));
  });
  return back({ done: "decided" });
}
