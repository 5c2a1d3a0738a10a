/** Where /admin/disputes asks a maintainer to confirm a decision (the decision in the URL: codes and numbers only). */
export function disputeConfirmHref(key: string, d: { outcome: "pass" | "fail" } | { outcome: "scored"; score: number }): string {
  return `/admin/disputes?confirm=${key}&outcome=${d.outcome}${d.outcome === "scored" ? `&score=${d.score}` : ""}#confirm`;
}
