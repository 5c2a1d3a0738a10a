/**
 * Integrity flags: what a maintainer should look at before approving an entry, each saying in
 * one public sentence what triggered it. The engine raises `unsupported_answers` and `canary`
 * (integrity-check.ts); `duplicate` needs the other entries, so lib/submissions raises it when
 * a run completes (duplicate-flags.ts). No message quotes a reference value or a canary string.
 */
export type IntegrityFlagKind = "duplicate" | "unsupported_answers" | "canary";
export const INTEGRITY_FLAG_KINDS: readonly IntegrityFlagKind[] = ["duplicate", "unsupported_answers", "canary"];

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
  /** Duplicates: the entry this one matches. */
  other?: { id: number; agent: string };
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

/** What the integrity checks found for a run (`scoring_runs.flags`): every flag, and the unsupported-answer shares behind one kind. */
export interface RunIntegrity {
  flags: IntegrityFlag[];
  unsupportedAnswers: UnsupportedAnswers;
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

export function duplicateFlag(other: { id: number; agent: string }, matched: number, of: number, threshold: number): IntegrityFlag {
  const share = of > 0 ? matched / of : 0;
  return {
    kind: "duplicate",
    message: `${percent(share)} of this entry's answered items (${matched} of ${of}) carry the same answers and tool calls as entry #${other.id} (${other.agent}), submitted before it.`,
    share,
    count: matched,
    of,
    threshold,
    other,
  };
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

/** The kinds among flags, once each, in a fixed order (what a badge lists). */
export function flagKinds(flags: readonly Pick<IntegrityFlag, "kind">[]): IntegrityFlagKind[] {
  return INTEGRITY_FLAG_KINDS.filter((k) => flags.some((f) => f.kind === k));
}

/** How a kind reads in a badge or a heading. */
export const FLAG_KIND_LABELS: Record<IntegrityFlagKind, string> = {
  duplicate: "duplicate",
  unsupported_answers: "unsupported answers",
  canary: "canary",
};
