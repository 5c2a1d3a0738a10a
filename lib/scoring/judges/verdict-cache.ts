/**
 * The verdict cache port. Keys hash the judge, the model and the exact prompt, so a rescore
 * with the same judge costs nothing. Only decisions are stored: errors are never cached.
 * In memory here; the database implements the same port.
 */
import { createHash } from "node:crypto";
import type { JudgeDecision } from "./judge";

export type CachedDecision = Omit<JudgeDecision, "cacheHit">;

export interface VerdictCache {
  get(key: string): Promise<CachedDecision | undefined>;
  set(key: string, decision: CachedDecision): Promise<void>;
}

export function createMemoryVerdictCache(): VerdictCache & { size(): number } {
  const map = new Map<string, CachedDecision>();
  return {
    async get(key) {
      return map.get(key);
    },
    async set(key, decision) {
      map.set(key, decision);
    },
    size: () => map.size,
  };
}

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

export function cacheKey(judge: string, model: string, promptHash: string): string {
  return sha256(`${judge}\n${model}\n${promptHash}`);
}
