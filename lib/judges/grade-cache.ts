/**
 * The one grade cache. Keys hash the grader, the model and the exact prompt, so a rescore
 * with the same judge costs nothing. Only judged grades are stored: `unjudged` never is.
 * Concurrent misses for one key share one computation. In memory here; the database
 * implements the same port.
 */
import { sha256 } from "../formats/sha256";
import type { Grade, GradeKind } from "./grader";

export type CachedGrade = Omit<Grade, "cacheHit">;

export interface GradeCache {
  get(key: string): Promise<CachedGrade | undefined>;
  set(key: string, grade: CachedGrade): Promise<void>;
}

export function createMemoryGradeCache(): GradeCache & { size(): number } {
  const map = new Map<string, CachedGrade>();
  return {
    async get(key) {
      return map.get(key);
    },
    async set(key, grade) {
      map.set(key, grade);
    },
    size: () => map.size,
  };
}

export function cacheKey(namespace: string, model: string, promptHash: string): string {
  return sha256(`${namespace}\n${model}\n${promptHash}`);
}

/** The key of an LLM grader's grade: the request's kind, the model and the exact prompt. */
export const gradeKey = (kind: GradeKind, model: string, promptHash: string): string => cacheKey(`grade/${kind}`, model, promptHash);

/**
 * Looks a grade up, else computes it once however many ask at the same time. An unjudged
 * grade is returned to every waiter but never stored, so a later call tries again.
 */
export function createCachedGrading(cache: GradeCache | undefined): (key: string, compute: () => Promise<CachedGrade>) => Promise<Grade> {
  const inFlight = new Map<string, Promise<CachedGrade>>();
  return async (key, compute) => {
    const hit = await cache?.get(key);
    if (hit) return { ...hit, cacheHit: true };
    const pending = inFlight.get(key);
    if (pending) return { ...(await pending), cacheHit: true };
    const p = compute();
    inFlight.set(key, p);
    try {
      const grade = await p;
      if (grade.outcome !== "unjudged") await cache?.set(key, grade);
      return { ...grade, cacheHit: false };
    } finally {
      inFlight.delete(key);
    }
  };
}
