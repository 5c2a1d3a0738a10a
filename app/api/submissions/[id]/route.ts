/**
 * GET /api/submissions/:id: one entry's summary (metadata, run, scores, funnel, timeline,
 * validation) as JSON, every submitted string cut to the page limits. Published entries are
 * public; any other is answered 404 unless a maintainer is signed in. Never kept by shared caches
 * (cache-control.ts: a withdrawal takes effect at once). A maintainer may add `?full=1` for the
 * larger limits. Strong ETag over the body; If-None-Match answers 304. Only GET is exported, so
 * Next answers other methods with 405.
 */
import { createHash } from "node:crypto";
import { pageDb } from "@/lib/queries/db";
import { getSubmission } from "@/lib/queries/submission";
import { parseId } from "@/components/common/search-params";
import { entryAccess } from "@/lib/queries/visibility";
import { requestIsMaintainer } from "@/app/admin/auth";
import { entryCacheControl } from "../cache-control";

export const dynamic = "force-dynamic";

/** True when the If-None-Match header lists this ETag (or `*`); weak and strong forms match. */
function matches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(",").some((t) => {
    const tag = t.trim().replace(/^W\//, "");
    return tag === "*" || tag === etag;
  });
}

export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const id = parseId((await params).id);
  const maintainer = await requestIsMaintainer(request);
  const db = await pageDb();
  const access = await entryAccess(db, id, { maintainer, wantsFull: new URL(request.url).searchParams.get("full") === "1" });
  const detail = access && id !== null ? await getSubmission(db, id, { limits: access.limits }) : null;
  if (!detail || !access) {
    return Response.json({ error: "not_found", message: "no submission with this id" }, { status: 404, headers: { "Cache-Control": "no-store" } });
  }
  const body = JSON.stringify(detail);
  const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
  const headers = { ETag: etag, "Cache-Control": entryCacheControl(access), Vary: "Cookie" };
  if (matches(request.headers.get("if-none-match"), etag)) return new Response(null, { status: 304, headers });
  return new Response(body, { status: 200, headers: { ...headers, "Content-Type": "application/json; charset=utf-8" } });
}
