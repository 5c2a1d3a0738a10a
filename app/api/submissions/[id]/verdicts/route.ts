/**
 * GET /api/submissions/:id/verdicts: the judge verdicts the entry's run used (verdict-export.ts),
 * so anyone can re-score it without an LLM (`agentboard verify`). Same visibility as the entry:
 * published for the public, any other state for a signed-in maintainer, else 404. The private
 * half (the judge's words, matched reference fields) is in only where the benchmark sets
 * `showGroundTruth`. Paged: `?page=n` (from 1), VERDICT_PAGE_SIZE items a page; `page.pages`
 * says how many there are. Never kept by shared caches (cache-control.ts).
 */
import { pageDb } from "@/lib/queries/db";
import { getRunVerdicts } from "@/lib/queries/run-verdicts";
import { entryAccess } from "@/lib/queries/visibility";
import { parseId } from "@/components/common/search-params";
import { requestIsMaintainer } from "@/app/admin/auth";
import { entryCacheControl } from "../../cache-control";

export const dynamic = "force-dynamic";

const notFound = (message: string) => Response.json({ error: "not_found", message }, { status: 404, headers: { "Cache-Control": "no-store" } });

export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const id = parseId((await params).id);
  const db = await pageDb();
  const access = await entryAccess(db, id, { maintainer: await requestIsMaintainer(request) });
  if (!access || id === null) return notFound("no submission with this id");
  const raw = new URL(request.url).searchParams.get("page") ?? "1";
  const page = /^[1-9][0-9]{0,6}$/.test(raw) ? Number(raw) : null;
  if (page === null) return Response.json({ error: "bad_request", message: "page must be a whole number from 1" }, { status: 400, headers: { "Cache-Control": "no-store" } });
  const verdicts = await getRunVerdicts(db, id, { page });
  if (!verdicts) return notFound(page > 1 ? "no such page of verdicts" : "this entry has no completed scoring run");
  return new Response(JSON.stringify(verdicts), { status: 200, headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": entryCacheControl(access), Vary: "Cookie" } });
}
