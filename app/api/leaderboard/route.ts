/**
 * Read-only leaderboard export: JSON by default, `?format=csv` for CSV; same view parameters as
 * `/`, so a download holds the rows and the columns on screen (`hide` leaves columns out).
 */
import { createHash } from "node:crypto";
import { applyView, columnIds, parseView } from "@/components/leaderboard/view-state";
import type { Db } from "@/db/client";
import { pageDb } from "@/lib/queries/db";
import { getLeaderboard } from "@/lib/queries/leaderboard";
import { leaderboardCsv, leaderboardCsvHeader, leaderboardRecords } from "@/lib/queries/leaderboard-csv";
import { memoByDataVersion } from "@/lib/queries/memo";

export const dynamic = "force-dynamic";

/**
 * Shared caches may keep the board but must ask again before each use (the ETag makes that a
 * 304): with a max-age or stale-while-revalidate they went on listing a withdrawn entry for minutes.
 */
const CACHE_CONTROL = "public, no-cache";

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

export async function GET(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const params = url.searchParams;
  const format = params.get("format") ?? "json";
  if (format !== "json" && format !== "csv") return json(400, { error: "format must be json or csv" });

  // The body and its ETag are memoised until the data changes: a request costs one lookup.
  // Only views without a free-text search (and short URLs): unique ones would only churn the memo.
  const db = await pageDb();
  const memoise = !params.has("q") && url.search.length <= 1024;
  const built = memoise ? await memoByDataVersion(db, `api-leaderboard\0${url.search}`, () => build(db, params, format)) : await build(db, params, format);
  if (!built.ok) return json(404, built.error);
  const { body, etag, contentType, fileName } = built;
  const headers = new Headers({ ETag: etag, "Cache-Control": CACHE_CONTROL, Vary: "Accept-Encoding", "Content-Type": contentType });
  if (fileName) headers.set("Content-Disposition", `attachment; filename="${fileName}"`);
  if (matches(request.headers.get("if-none-match"), etag)) return new Response(null, { status: 304, headers });
  return new Response(body, { status: 200, headers });
}

/**
 * Where the site is reached from outside (`AGENTBOARD_PUBLIC_URL`), for absolute entry URLs; null
 * (entry paths) when unset. Never the request's Host header: a client chooses that, and the body
 * is memoised and cached for every client.
 */
function publicOrigin(): string | null {
  const raw = process.env.AGENTBOARD_PUBLIC_URL?.trim();
  if (!raw) return null;
  try {
    const u = new URL(raw);
    return u.protocol === "https:" || u.protocol === "http:" ? `${u.origin}${u.pathname.replace(/\/+$/, "")}` : null;
  } catch {
    return null;
  }
}

type Built = { ok: true; body: Uint8Array<ArrayBuffer>; etag: string; contentType: string; fileName: string | null } | { ok: false; error: Record<string, unknown> };

async function build(db: Db, params: URLSearchParams, format: "json" | "csv"): Promise<Built> {
  const benchmark = params.get("benchmark") || undefined;
  const version = params.get("version") || undefined;
  const board = await getLeaderboard(db, { benchmark, version });
  if (!board) return { ok: false, error: { error: "unknown benchmark or version", benchmark: benchmark ?? null, version: version ?? null } };
  const capabilities = board.benchmark.capabilities;
  const view = parseView(params, capabilities.map((c) => c.id));
  const entries = applyView(board.entries, view);
  const columns = columnIds(capabilities.map((c) => c.id)).filter((c) => !view.hide.includes(c));
  const opts = { columns, origin: publicOrigin(), metric: view.metric };
  const text =
    format === "csv"
      ? leaderboardCsv(capabilities, entries, opts)
      : JSON.stringify({ benchmark: board.benchmark, updatedAt: board.updatedAt, fields: leaderboardCsvHeader(capabilities, opts), entries: leaderboardRecords(capabilities, entries, opts) });
  // Encoded once: every later request sends the same bytes.
  const body = new TextEncoder().encode(text);
  const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 32)}"`;
  if (format === "csv") {
    const fileName = `${board.benchmark.slug}-${board.benchmark.version}-leaderboard.csv`.replace(/[^\w.-]+/g, "_");
    return { ok: true, body, etag, contentType: "text/csv; charset=utf-8", fileName };
  }
  return { ok: true, body, etag, contentType: "application/json; charset=utf-8", fileName: null };
}
