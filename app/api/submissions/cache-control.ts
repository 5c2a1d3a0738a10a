/**
 * Cache-Control of an entry's JSON (summary, per-item results, verdict exports). A maintainer
 * can withdraw a published entry at any moment, and from then on none of it may be served:
 * a shared cache (a CDN, a proxy) keeping a copy for its s-maxage and stale-while-revalidate
 * would go on serving the withdrawn verdicts for minutes. So these are never stored by shared
 * caches (`private`); the browser's copy of a published entry is revalidated before each use
 * (`no-cache`: an ETag makes that a 304), and a maintainer's view is not stored at all.
 */
import type { EntryAccess } from "@/lib/queries/visibility";

export function entryCacheControl(access: EntryAccess): string {
  return access.state === "published" && !access.full ? "private, no-cache" : "private, no-store";
}
