/**
 * Each board entry's own links (paper, code, homepage…), as its submission gave them
 * (`submissions.links`, from metadata.json or the issue form): only http(s) URLs, a few per
 * entry, names and URLs cut, so a submitter's text never becomes a script or a wall of links.
 */
import { inArray } from "drizzle-orm";
import type { Db } from "../../db/client";
import { submissions } from "../../db/schema";
import { memoByDataVersion } from "./memo";
import type { EntryLink } from "./types";

/** At most this many links per entry on the board (the entry page lists them all). */
export const MAX_BOARD_LINKS = 4;
const MAX_NAME_CHARS = 24;
const MAX_URL_CHARS = 500;
/** Ids per query: an IN list stays well under either engine's parameter limit. */
const CHUNK = 500;

/** A submitted link as the board shows it, or null when it is no http(s) URL. */
export function boardLink(name: string, url: unknown): EntryLink | null {
  if (typeof url !== "string" || url.length > MAX_URL_CHARS) return null;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") return null;
  const shown = name.trim().replace(/\s+/g, " ");
  return { name: shown.length > MAX_NAME_CHARS ? `${shown.slice(0, MAX_NAME_CHARS - 1)}…` : shown || "link", href: u.toString() };
}

/** Entry id → its board links; entries without any are left out. Read once per data version and `board` (the board the ids are the entries of). */
export async function entryLinks(db: Db, ids: readonly number[], board: { benchmark: string; version: string }): Promise<Map<number, EntryLink[]>> {
  if (ids.length === 0) return new Map();
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  const read = async () => {
    const out: [number, EntryLink[]][] = [];
    for (let i = 0; i < sorted.length; i += CHUNK) {
      const rows = await db.select({ id: submissions.id, links: submissions.links }).from(submissions).where(inArray(submissions.id, sorted.slice(i, i + CHUNK)));
      for (const r of rows) {
        const links = Object.entries(r.links && typeof r.links === "object" ? r.links : {})
          .flatMap(([name, url]) => boardLink(name, url) ?? [])
          .slice(0, MAX_BOARD_LINKS);
        if (links.length) out.push([r.id, links]);
      }
    }
    return out;
  };
  // A board's entries are one set per data version.
  return new Map(await memoByDataVersion(db, `entry-links\0${board.benchmark}\0${board.version}`, read));
}
