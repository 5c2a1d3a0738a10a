/**
 * Where an entry sits, for its pages' breadcrumb: a published entry on its benchmark's board, one
 * being validated or scored in the queue, any other (scored, approved, invalid, error, rejected,
 * withdrawn) in the queue's finished list of its state.
 */
const IN_FLIGHT = new Set(["received", "validating", "queued", "scoring"]);

export interface Crumb {
  href: string;
  label: string;
}

export function entryTrail(state: string, board: { href: string; title: string }): Crumb {
  if (state === "published") return { href: board.href, label: `${board.title} leaderboard` };
  if (IN_FLIGHT.has(state)) return { href: "/queue", label: "Queue" };
  return { href: `/queue?state=${encodeURIComponent(state)}#finished`, label: `Queue · ${state}` };
}
