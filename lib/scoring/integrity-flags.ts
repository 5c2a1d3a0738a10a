/**
 * Integrity flags: what a maintainer should look at before approving an entry, each saying what
 * triggered it. Shape only for now; the checks come with issue 16.
 */
export type IntegrityFlagKind = "duplicate" | "unsupported_answers" | "canary";

export interface IntegrityFlag {
  kind: IntegrityFlagKind;
  /** One public sentence: what triggered it (never a reference value). */
  message: string;
  capability?: string;
  /** 0–1: the share of items that triggered it. */
  share?: number;
  /** Duplicates: the entry this one matches. */
  other?: { id: number; agent: string };
  /** The items that triggered it (capability and uuid), at most a page's worth. */
  items?: { capability: string; uuid: string }[];
}
