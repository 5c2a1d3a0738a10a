/** Read-only leaderboard export: JSON by default, `?format=csv` for CSV; same view parameters as `/`. */
import { createHash } from "node:crypto";
import { applyView, parseView } from "@/components/leaderboard/view-state";
import { pageDb } from "@/lib/queries/db";
import { getLeaderboard } from "@/lib/queries/leaderboard";
import { leaderboardCsv } from "@/lib/queries/leaderboard-csv";

export const dynamic = "force-dynamic";

const CACHE_CONTROL = "public, max-age=0, s-maxage=30, stale-while-revalidate=300";

function json(status: number, body: unknown): Response {
  return Response.json(body, { status, headers: { "Cache-Control": "no-store" } });
}

/** True when an If-None-Match header lists this ETag (weak or strong) or `*`. */
function matches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(",").some((t) => {
    const tag = t.trim();
    return tag === "*" || tag.replace(/^W\//, "") === etag;
  });
}

export function GET(request: Request): Response {
  const url = new URL(request.url);
  const params = url.searchParams;
  const format = params.get("format") ?? "json";
  if (format !== "json" && format !== "csv") return json(400, { error: "format must be json or csv" });

  const benchmark = params.get("benchmark") || undefined;
  const version = params.get("version") || undefined;
  const board = getLeaderboard(pageDb(), { benchmark, version });
  if (!board) return json(404, { error: "unknown benchmark or version", benchmark: benchmark ?? null, version: version ?? null });

  const view = parseView(params, board.benchmark.capabilities.map((c) => c.id));
  const entries = applyView(board.entries, view);
  const body =
    format === "csv" ? leaderboardCsv(board.benchmark.capabilities, entries) : JSON.stringify({ benchmark: board.benchmark, updatedAt: board.updatedAt, entries });
  const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 32)}"`;
  const headers = new Headers({ ETag: etag, "Cache-Control": CACHE_CONTROL, Vary: "Accept-Encoding" });
  if (matches(request.headers.get("if-none-match"), etag)) return new Response(null, { status: 304, headers });

  if (format === "csv") {
    headers.set("Content-Type", "text/csv; charset=utf-8");
    const name = `${board.benchmark.slug}-${board.benchmark.version}-leaderboard.csv`.replace(/[^\w.-]+/g, "_");
    headers.set("Content-Disposition", `attachment; filename="${name}"`);
  } else {
    headers.set("Content-Type", "application/json; charset=utf-8");
  }
  return new Response(body, { status: 200, headers });
}
