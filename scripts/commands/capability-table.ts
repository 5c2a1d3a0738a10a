/** The capability table printed by `score` and the main job. */
import type { ScoreResults } from "../../lib/aggregate/score-results";

const f1 = (n: number) => n.toFixed(1);

/** A run of k > 1 trials adds each capability's spread across trials and pass^k. */
export function renderCapabilityTable(r: ScoreResults): string {
  const k = r.trials;
  const stats = r.trialStats;
  const spread = (t: { sd: number | null; passK: number } | undefined, submitted: boolean) => (k > 1 ? [submitted && t?.sd != null ? f1(t.sd) : "", submitted && t ? f1(t.passK) : ""] : []);
  const rows: string[][] = [["Capability", "Score", "95% CI", "Items", "Missing", "Errors", "Policy unchecked", ...(k > 1 ? ["SD (trials)", `pass^${k}`] : [])]];
  for (const [id, c] of Object.entries(r.capabilities)) {
    rows.push([
      `${c.label} (${id})`,
      c.submitted ? f1(c.score) : "—",
      c.submitted ? `[${f1(c.ciLow)}, ${f1(c.ciHigh)}]` : "",
      String(c.nItems),
      String(c.nMissing),
      String(c.nError),
      String(c.nPolicyUnchecked),
      ...spread(stats?.capabilities[id], c.submitted),
    ]);
  }
  rows.push([`Overall${r.overall.complete ? "" : " (partial)"}`, f1(r.overall.score), `[${f1(r.overall.ciLow)}, ${f1(r.overall.ciHigh)}]`, "", "", "", "", ...spread(stats?.overall, true)]);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  const line = (row: string[]) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ").trimEnd();
  const sep = widths.map((w) => "-".repeat(w)).join("  ");
  const body = rows.slice(1, -1).map(line);
  const head = `${r.benchmark.title} v${r.benchmark.version} · judge ${r.judge.id} · replay ${r.replay}${r.verified ? " (verified)" : " (unverified)"}${k > 1 ? ` · mean of ${k} trials (items and counts are item-trials)` : ""}`;
  return [head, line(rows[0]!), sep, ...body, sep, line(rows[rows.length - 1]!)].join("\n") + "\n";
}
