/**
 * `rejudge --benchmark <dir> --judge <kind> [--apply]`: every published entry of the benchmark
 * (the version its benchmark.yaml names) graded again by another judge, through the database's
 * grade cache, publishing nothing (lib/submissions/rejudge.ts). Prints each entry's published
 * → rejudged overall and capabilities, its rank on the board → its rank on the board as it
 * would be, and Kendall's τ-b between the two rankings; progress on stderr. `--apply` then
 * queues the rescoring of the entries rejudged in full (a worker scores them; a maintainer
 * approves each again, as after any rescore).
 *
 * Exit 0 when every entry was rejudged in full, 3 when one could not be read or was left
 * incomplete by the judge (it is named, the others are reported all the same), 2 on usage errors.
 */
import { closeDatabase, connectDatabase } from "../../db/client";
import { recordedJudge, type JudgeFlags } from "../../lib/judges/judge-settings";
import { createDbGradeCache } from "../../lib/submissions/db-grade-cache";
import { queueRejudged, rejudgeBoard, RejudgeError, rejudgedInFull, type QueueOutcome, type RejudgeReport } from "../../lib/submissions/rejudge";
import { createScoringDeps } from "../../lib/submissions/scoring-deps";
import { agentboardVersion } from "./build-info";
import { usageError } from "./cli-errors";
import { databaseName } from "./db-url";
import { graderOrFail, judgeSettingsOrFail } from "./judge-options";
import { loadSpecOrFail, storageOrFail } from "./load";
import { createProgress } from "./progress";
import { limitsOrFail } from "./validate";

export interface RejudgeFlags extends JudgeFlags {
  benchmark: string;
  db?: string;
  apply?: boolean;
  json?: boolean;
  quiet?: boolean;
}

export async function rejudgeCommand(flags: RejudgeFlags): Promise<number> {
  limitsOrFail();
  const storage = storageOrFail();
  const { spec } = await loadSpecOrFail(flags.benchmark);
  // Asked before resolving: the verdicts judge would first ask for its file.
  if (flags.judge === "verdicts") throw usageError("rejudge grades with rules, literal or openai; the verdicts judge re-scores one run from its own export (agentboard verify)");
  const settings = judgeSettingsOrFail({ flags, env: process.env, config: spec.judge });
  if (settings.kind === "verdicts") throw usageError("rejudge grades with rules, literal or openai");
  const db = await connectDatabase(flags.db);
  const now = () => new Date();
  // The worker's scoring parts (replay ports, storage, budgets): an entry is scored as its rescore would be.
  const scoring = createScoringDeps(db, { env: process.env, agentboard: agentboardVersion(), storage, now });
  try {
    const grader = graderOrFail(settings, { cache: createDbGradeCache(db, now) });
    const judge = { ...recordedJudge(settings), id: grader.id, model: grader.model ?? null };
    const report = await rejudgeBoard(db, { slug: spec.slug, version: spec.version }, { grader, judge, scoring, ...(flags.quiet ? {} : { onProgress: createProgress("rejudging") }) }).catch((err: unknown) => {
      if (err instanceof RejudgeError) throw usageError(`${err.message}: ${databaseName(flags.db)}`);
      throw err;
    });
    let queued: QueueOutcome[] | null = null;
    if (flags.apply) queued = await queueRejudged(db, report, { judgeKind: settings.kind, ...(settings.model ? { judgeModel: settings.model } : {}) }, { actor: "cli", at: now() });
    process.stdout.write(flags.json ? `${JSON.stringify({ ...report, queued }, null, 2)}\n` : renderRejudge(report, queued));
    return report.entries.every(rejudgedInFull) ? 0 : 3;
  } finally {
    await scoring.close();
    await closeDatabase(db);
  }
}

const f1 = (n: number) => n.toFixed(1);
const signed = (n: number) => (n > 0 ? `+${f1(n)}` : n < 0 ? `−${f1(-n)}` : "±0.0");
const change = (a: number | null, b: number | null) => `${a === null ? "—" : f1(a)} → ${b === null ? "—" : f1(b)}`;
const tauText = (t: number | null) => (t === null ? "undefined (fewer than two entries, or every entry tied)" : t.toFixed(3));

export function renderRejudge(r: RejudgeReport, queued: QueueOutcome[] | null): string {
  const lines: string[] = [];
  const n = r.entries.length;
  lines.push(`${r.benchmark.title} v${r.benchmark.version}: ${n} published entr${n === 1 ? "y" : "ies"} graded again by judge ${r.judge.id} (nothing published)`);
  if (n === 0) return `${lines.join("\n")}\n`;
  const head = ["Entry", "Agent", "Judged by", "Overall", "Change", "Rank", ...r.capabilities.map((c) => c.label)];
  const rows = r.entries.map((e) => {
    const now = e.rejudged;
    return [
      `#${e.id}`,
      e.agent,
      e.publishedJudge ?? "—",
      now ? change(e.published.overall, now.overall) : `${f1(e.published.overall)} → not rejudged`,
      now ? signed(now.overall - e.published.overall) : "",
      `${e.published.rank} → ${e.rank}`,
      ...r.capabilities.map((c) => (now ? change(e.published.capabilities[c.id] ?? null, now.capabilities[c.id] ?? null) : "")),
    ];
  });
  const widths = head.map((_, i) => Math.max(head[i]!.length, ...rows.map((row) => row[i]!.length)));
  const line = (row: string[]) => row.map((cell, i) => cell.padEnd(widths[i]!)).join("  ").trimEnd();
  lines.push("", line(head), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line));
  const notes = r.entries.flatMap((e) => {
    if (e.failure) return [`#${e.id}: ${e.failure}; it keeps its published numbers in the new ranking`];
    const missing = (e.rejudged?.unjudged ?? 0) + (e.rejudged?.replayErrors ?? 0);
    return missing > 0 ? [`#${e.id}: incomplete: ${e.rejudged!.unjudged} item(s) could not be judged${e.rejudged!.replayErrors ? `, ${e.rejudged!.replayErrors} replayed` : ""} (scored 0 above); run rejudge again once the judge answers (the grades it gave are cached)`] : [];
  });
  if (notes.length) lines.push("", ...notes);
  const kept = r.entries.filter((e) => !e.rejudged).length;
  lines.push(
    "",
    `Kendall's τ-b between the two rankings, by overall score: ${tauText(r.tau.overall)}`,
    `Kendall's τ-b between the board's ranks (ties: entries not significantly different): ${tauText(r.tau.ranks)}`,
    ...(kept ? [`(${kept} entr${kept === 1 ? "y" : "ies"} not rejudged count at their published numbers on both sides)`] : []),
  );
  if (queued) {
    const done = queued.filter((q): q is Extract<QueueOutcome, { runId: number }> => "runId" in q);
    lines.push("", `Queued ${done.length} rescore(s) with judge ${r.judge.id}; each entry leaves the board until a maintainer approves its new run:`);
    for (const q of queued) lines.push("runId" in q ? `  #${q.id}: run ${q.runId} queued` : `  #${q.id}: not queued: ${q.skipped}`);
    lines.push(`A worker scores them (./agentboard worker); it asks its own judge endpoint (AGENTBOARD_JUDGE_BASE_URL or benchmark.yaml's judge.baseUrl), and grades cached here for the same model cost no request.`);
  } else {
    lines.push("", "Nothing changed on the board. --apply queues these rescores (each entry then waits for a maintainer's approval).");
  }
  return `${lines.join("\n")}\n`;
}
