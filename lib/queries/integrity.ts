/**
 * A run's integrity flags and unsupported-answer shares (`scoring_runs.flags`, written when the
 * run completed) as pages, the JSON API and the admin list show them. Read defensively: a
 * hand-edited or older row shows what it validly holds. No flag quotes a reference value or a
 * canary; a duplicate's other entry is linked only where it is published. Flags a maintainer
 * cleared are read only by `getFlagReview` (maintainers): no public reader sees them.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { scoringRuns, submissions, type SubmissionState } from "../../db/schema";
import type { BenchmarkSpec } from "../benchmark/spec";
import { flagKey, MAX_FLAGGED_ITEMS, storedCleared, storedFlags, type IntegrityFlagKind } from "../scoring/integrity-flags";
import { publishedIds } from "./activity";
import { createClipper, PUBLIC_RENDER_LIMITS, type Clipper } from "./render-limits";
import type { IntegrityFlagView, IntegrityView } from "./types";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const isTrial = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 1;

/** Kind and message of each flag, cut to the page limits (the admin list, the bot comment). */
export function flagMessages(raw: unknown, clip: Clipper): { kind: IntegrityFlagKind; message: string }[] {
  return clip.list(storedFlags(raw)).map((f) => ({ kind: f.kind, message: clip.text(f.message) }));
}

/** Whether the submission's current run carries any flag (approving it then asks for confirmation). */
export async function isFlagged(db: Db, submissionId: number): Promise<boolean> {
  const [row] = await db.select({ flags: scoringRuns.flags }).from(submissions).innerJoin(scoringRuns, eq(scoringRuns.id, submissions.currentRunId)).where(eq(submissions.id, submissionId)).limit(1);
  return storedFlags(row?.flags).length > 0;
}

/** A run's flags and shares for its entry page and JSON; null when the run has none stored (not completed, or scored before flags were kept). */
export async function readIntegrity(db: Db, raw: unknown, spec: BenchmarkSpec, clip: Clipper): Promise<IntegrityView | null> {
  if (!isObj(raw)) return null;
  const flags = clip.list(storedFlags(raw));
  const otherIds = flags.flatMap((f) => (isObj(f.other) && num(f.other.id) !== null ? [num(f.other.id)!] : []));
  const published = await publishedIds(db, otherIds);
  const views: IntegrityFlagView[] = flags.map((f) => {
    const other = isObj(f.other) && num(f.other.id) !== null ? { id: num(f.other.id)!, agent: clip.name(String(f.other.agent ?? "")), published: published.has(num(f.other.id)!) } : null;
    const items = Array.isArray(f.items) ? f.items.filter((i) => isObj(i) && typeof i.capability === "string" && typeof i.uuid === "string") : [];
    return {
      kind: f.kind,
      message: clip.text(f.message),
      capability: typeof f.capability === "string" ? clip.name(f.capability) : null,
      share: num(f.share),
      count: num(f.count),
      of: num(f.of),
      threshold: num(f.threshold),
      other,
      items: items.slice(0, MAX_FLAGGED_ITEMS).map((i) => ({ capability: clip.name(i.capability), uuid: clip.name(i.uuid), ...(isTrial(i.trial) ? { trial: i.trial } : {}) })),
      inMetadata: f.inMetadata === true,
    };
  });
  const ua = isObj(raw.unsupportedAnswers) ? raw.unsupportedAnswers : {};
  const caps = isObj(ua.capabilities) ? ua.capabilities : {};
  return {
    flags: views,
    unsupportedAnswers: {
      threshold: num(ua.threshold),
      capabilities: spec.capabilities.map((c) => {
        const s = caps[c.id];
        if (!isObj(s)) return { id: c.id, label: c.label, applies: false, unsupported: 0, scored: 0, share: null, flagged: false };
        return { id: c.id, label: c.label, applies: true, unsupported: num(s.unsupported) ?? 0, scored: num(s.scored) ?? 0, share: num(s.share), flagged: s.flagged === true };
      }),
    },
  };
}

/** An entry's integrity flags as maintainers review them (/admin/flags): those raised, each clearable by its key, and those cleared, with why. */
export interface FlagReview {
  id: number;
  agent: string;
  state: SubmissionState;
  /** The run the flags are of (the current one); null before a run completes. */
  runId: number | null;
  flags: { key: string; kind: IntegrityFlagKind; message: string }[];
  cleared: { key: string; kind: IntegrityFlagKind; message: string; reason: string; by: string; at: string }[];
}

/** Maintainers only: the current run's raised and cleared flags; null for no such submission. */
export async function getFlagReview(db: Db, submissionId: number): Promise<FlagReview | null> {
  const [row] = await db
    .select({ id: submissions.id, agent: submissions.agentName, state: submissions.state, runId: submissions.currentRunId, flags: scoringRuns.flags })
    .from(submissions)
    .leftJoin(scoringRuns, eq(scoringRuns.id, submissions.currentRunId))
    .where(eq(submissions.id, submissionId))
    .limit(1);
  if (!row) return null;
  const clip = createClipper(PUBLIC_RENDER_LIMITS);
  return {
    id: row.id,
    agent: clip.name(row.agent),
    state: row.state,
    runId: row.runId,
    flags: clip.list(storedFlags(row.flags)).map((f) => ({ key: flagKey(f), kind: f.kind, message: clip.text(f.message) })),
    cleared: clip.list(storedCleared(row.flags)).map((c) => ({ key: flagKey(c.flag), kind: c.flag.kind, message: clip.text(c.flag.message), reason: clip.text(c.reason), by: clip.name(c.by), at: c.at })),
  };
}
