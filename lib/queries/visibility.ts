/** Who may see an entry's pages: the public only published entries, maintainers every one. */
import type { Db } from "../../db/client";
import { FULL_RENDER_LIMITS, PUBLIC_RENDER_LIMITS, type RenderLimits } from "./render-limits";
import { isPublicState, submissionState } from "./submission";

export interface EntryAccess {
  state: string;
  /** The render limits this viewer gets: larger for a maintainer who asked for everything. */
  limits: RenderLimits;
  full: boolean;
}

/** null when the entry does not exist or this viewer may not see it (both answered 404). */
export async function entryAccess(db: Db, id: number | null, viewer: { maintainer: boolean; wantsFull?: boolean }): Promise<EntryAccess | null> {
  if (id === null) return null;
  const state = await submissionState(db, id);
  if (state === null || (!isPublicState(state) && !viewer.maintainer)) return null;
  const full = viewer.maintainer && viewer.wantsFull === true;
  return { state, limits: full ? FULL_RENDER_LIMITS : PUBLIC_RENDER_LIMITS, full };
}
