/**
 * Integrity flags: what a maintainer should look at before approving an entry, each saying in
 * one public sentence what triggered it. The engine raises `unsupported_answers` and `canary`
 * (integrity-check.ts); `duplicate` and `near_copy` need the other entries, so lib/submissions
 * raises them when a run completes (run-integrity.ts). A maintainer may clear a flag with a
 * reason: it moves to the run's `cleared` list, which no public page reads. No message quotes
 * a reference value or a canary string.
 */
export type IntegrityFlagKind = "duplicate" | "near_copy" | "unsupported_answers" | "canary";
export const INTEGRITY_FLAG_KINDS: readonly IntegrityFlagKind[] = ["duplicate", "near_copy", "unsupported_answers", "canary"];

/** The kinds that name another entry, raised by comparing entries (lib/submissions/run-integrity.ts). */
export const COPY_FLAG_KINDS: readonly IntegrityFlagKind[] = ["duplicate", "near_copy"];

/** A flagged item, by capability and uuid. */
export interface FlaggedItem {
  capability: string;
  uuid: string;
  /** Its trial (1-based), only in a bundle of more than one trial: a plain bundle's flags name none. */
  trial?: number;
}

export interface IntegrityFlag {
  kind: IntegrityFlagKind;
  /** One public sentence: what triggered it (never a reference value, never a canary string). */
  message: string;
  capability?: string;
  /** 0–1: the share of items that triggered it. */
  share?: number;
  /** The items that triggered it, exactly, and the denominator `share` is of. */
  count?: number;
  of?: number;
  /** The threshold the share was compared with. */
  threshold?: number;
  /** Duplicates and near copies: the entry this one matches that was received first. */
  other?: { id: number; agent: string };
  /** Duplicates and near copies: how many more entries, received before this one, match it as well. */
  more?: number;
  /** Duplicates and near copies: the ids of every entry counted (`other` and the `more`, at most MAX_COUNTED_ENTRIES), so a recount never counts one twice. Not shown. */
  entries?: number[];
  /** The items that triggered it, at most `MAX_FLAGGED_ITEMS` (`count` is exact). */
  items?: FlaggedItem[];
  /** Canary: the bundle's metadata held one too. */
  inMetadata?: boolean;
}

/** Items a flag lists at most: a page's worth. */
export const MAX_FLAGGED_ITEMS = 50;

/** Per capability: scored items whose correct answer the replayed calls do not support. */
export interface UnsupportedAnswerShare {
  unsupported: number;
  /** The denominator: the capability's items with status `scored`. */
  scored: number;
  /** unsupported / scored; null when nothing was scored. */
  share: number | null;
  flagged: boolean;
}

export interface UnsupportedAnswers {
  /** Flag a capability whose share is above this; null when the benchmark turned the check off. */
  threshold: number | null;
  /** By capability id; null where the check does not apply (evaluator capabilities). */
  capabilities: Record<string, UnsupportedAnswerShare | null>;
}

/** A flag a maintainer cleared: kept with who cleared it, when and why (maintainers only). */
export interface ClearedFlag {
  flag: IntegrityFlag;
  reason: string;
  by: string;
  /** ISO time of the clearing. */
  at: string;
}

/** What the integrity checks found for a run (`scoring_runs.flags`): every flag, and the unsupported-answer shares behind one kind. */
export interface RunIntegrity {
  flags: IntegrityFlag[];
  unsupportedAnswers: UnsupportedAnswers;
  /** Flags a maintainer cleared: not among `flags`, so no page, badge or filter counts them. */
  cleared?: ClearedFlag[];
}

export const percent = (share: number) => `${(Math.round(share * 1000) / 10).toLocaleString("en-US")}%`;

const itemsWord = (n: number) => `${n.toLocaleString("en-US")} ${n === 1 ? "item" : "items"}`;

export function unsupportedAnswersFlag(capability: string, label: string, s: UnsupportedAnswerShare, threshold: number, items: FlaggedItem[]): IntegrityFlag {
  return {
    kind: "unsupported_answers",
    message: `${label}: ${percent(s.share ?? 0)} of scored items (${s.unsupported} of ${s.scored}) have a correct answer that the replayed tool calls do not support, above the benchmark's threshold of ${percent(threshold)}.`,
    capability,
    share: s.share ?? 0,
    count: s.unsupported,
    of: s.scored,
    threshold,
    items: items.slice(0, MAX_FLAGGED_ITEMS),
  };
}

/** Every item that holds a canary (the flag lists a page of them and counts them all). */
export function canaryFlag(items: FlaggedItem[], inMetadata: boolean): IntegrityFlag {
  const count = items.length;
  const where = [count > 0 ? `the submitted text of ${itemsWord(count)}` : "", inMetadata ? "the bundle's metadata" : ""].filter(Boolean).join(" and ");
  return {
    kind: "canary",
    message: `A canary string of this benchmark appears in ${where}: the agent's model may have been trained on the benchmark's data.`,
    count,
    items: items.slice(0, MAX_FLAGGED_ITEMS),
    inMetadata,
  };
}

const entriesWord = (n: number) => `${n.toLocaleString("en-US")} more ${n === 1 ? "entry" : "entries"}`;

/**
 * The entries a copy flag counts by id at most. Past it the flag says "at least" and counts no
 * more: a flag's size, and the work of keeping it, stay bounded however many entries of a board
 * share their answers (a small benchmark whose agents all answer alike).
 */
export const MAX_COUNTED_ENTRIES = 100;

/** Ids once each, in order, at most MAX_COUNTED_ENTRIES. */
const counted = (ids: readonly number[]) => [...new Set(ids)].slice(0, MAX_COUNTED_ENTRIES);

/** The entry a copy matches first (received first), its share of the copy's answered items, and every entry counted. */
interface CopyMatch {
  other: { id: number; agent: string };
  matched: number;
  of: number;
  /** Every matching entry received before the copy, `other` included. */
  entries: readonly number[];
}

function copyFlag(kind: "duplicate" | "near_copy", m: CopyMatch, threshold: number, after = ""): IntegrityFlag {
  const share = m.of > 0 ? m.matched / m.of : 0;
  const entries = counted(m.entries.includes(m.other.id) ? m.entries : [m.other.id, ...m.entries]);
  const more = entries.length - 1;
  const atLeast = entries.length >= MAX_COUNTED_ENTRIES ? "at least " : "";
  const also = more > 0 ? `, and as ${atLeast}${entriesWord(more)} submitted before it` : "";
  return {
    kind,
    message: `${percent(share)} of this entry's answered items (${m.matched} of ${m.of}) carry the same answers and tool calls as entry #${m.other.id} (${m.other.agent}), submitted before it${also}${after}.`,
    share,
    count: m.matched,
    of: m.of,
    threshold,
    other: m.other,
    ...(more > 0 ? { more } : {}),
    entries,
  };
}

/** The same answers and tool calls (once normalised) on at least `threshold` of the answered items; `entries` every earlier entry counted. */
export function duplicateFlag(other: { id: number; agent: string }, matched: number, of: number, threshold: number, entries: readonly number[] = [other.id]): IntegrityFlag {
  return copyFlag("duplicate", { other, matched, of, entries }, threshold);
}

/** Most answered items the same (once normalised) and all `items` scored the same: a copy with some answers reworded. */
export function nearCopyFlag(other: { id: number; agent: string }, matched: number, of: number, threshold: number, items: number, entries: readonly number[] = [other.id]): IntegrityFlag {
  return copyFlag("near_copy", { other, matched, of, entries }, threshold, `; all ${itemsWord(items)} score the same as there: a near copy`);
}

/** The entries a stored copy flag counts (its first alone for one stored without them). */
export function countedEntries(f: Pick<IntegrityFlag, "other" | "entries">): number[] {
  const ids = Array.isArray(f.entries) ? counted(f.entries.filter((id): id is number => Number.isSafeInteger(id))) : [];
  return ids.length > 0 ? ids : f.other && Number.isSafeInteger(f.other.id) ? [f.other.id] : [];
}

/**
 * What identifies a flag across runs of the same bundle (a rescore raises the same flag
 * again): its kind, capability and the entry it names. A clearing applies to that key.
 */
export function flagKey(f: Pick<IntegrityFlag, "kind" | "capability" | "other">): string {
  return `${f.kind}:${f.capability ?? ""}:${f.other?.id ?? ""}`;
}

/**
 * The flags of a stored `RunIntegrity` (read back from the database, so read defensively): only
 * entries of a known kind with a message; null or an older shape gives none.
 */
export function storedFlags(raw: unknown): IntegrityFlag[] {
  const list = raw && typeof raw === "object" && !Array.isArray(raw) ? (raw as { flags?: unknown }).flags : undefined;
  if (!Array.isArray(list)) return [];
  return list.filter((f): f is IntegrityFlag => !!f && typeof f === "object" && INTEGRITY_FLAG_KINDS.includes((f as IntegrityFlag).kind) && typeof (f as IntegrityFlag).message === "string");
}

/** The cleared flags of a stored `RunIntegrity`, read as defensively as `storedFlags`. */
export function storedCleared(raw: unknown): ClearedFlag[] {
  const list = raw && typeof raw === "object" && !Array.isArray(raw) ? (raw as { cleared?: unknown }).cleared : undefined;
  if (!Array.isArray(list)) return [];
  return list.filter((c): c is ClearedFlag => {
    if (!c || typeof c !== "object") return false;
    const { flag, reason, by, at } = c as ClearedFlag;
    return storedFlags({ flags: [flag] }).length === 1 && typeof reason === "string" && typeof by === "string" && typeof at === "string";
  });
}

/** The kinds among flags, once each, in a fixed order (what a badge lists). */
export function flagKinds(flags: readonly Pick<IntegrityFlag, "kind">[]): IntegrityFlagKind[] {
  return INTEGRITY_FLAG_KINDS.filter((k) => flags.some((f) => f.kind === k));
}

/** How a kind reads in a badge or a heading. */
export const FLAG_KIND_LABELS: Record<IntegrityFlagKind, string> = {
  duplicate: "duplicate",
  near_copy: "near copy",
  unsupported_answers: "unsupported answers",
  canary: "canary",
};
