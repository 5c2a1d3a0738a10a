"use client";
import { useEffect, useRef, useState } from "react";
import { BOARD_VIEW, queryString, serializeView, type ViewState } from "./view-state";

/** URL parameters owned by the view; everything else in the URL (benchmark, version) is kept. */
export const VIEW_PARAMS = ["sort", "dir", "q", "hide", "verified", "partial", "demo", "flagged", "vs", "metric"] as const;

/** The URL search string for a view, keeping the current non-view parameters. */
export function viewSearch(current: string, view: ViewState): string {
  const params = new URLSearchParams(current);
  for (const k of VIEW_PARAMS) params.delete(k);
  for (const [k, v] of serializeView(view, BOARD_VIEW)) params.set(k, v);
  const s = queryString(params);
  return s ? `?${s}` : "";
}

/**
 * View state that lives in the URL. The server parses the URL for the first render; afterwards
 * the state changes locally (no server round trip: the rows are already here) and the URL follows
 * with `history.replaceState`, which Next.js keeps in sync with its router. No scrolling, no
 * history entries; a reload restores the view.
 */
export function useUrlView(initial: ViewState) {
  const [view, setView] = useState(initial);
  // A navigation (a link to `/` or to another version) renders the page again with a new
  // initial view: start over from it, so the table always matches the URL.
  const [from, setFrom] = useState(initial);
  if (from !== initial) {
    setFrom(initial);
    setView(initial);
  }
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const t = window.setTimeout(() => {
      const search = viewSearch(window.location.search, view);
      if (search !== window.location.search) window.history.replaceState(null, "", `${window.location.pathname}${search}${window.location.hash}`);
    }, 150);
    return () => window.clearTimeout(t);
  }, [view]);
  return [view, setView] as const;
}
