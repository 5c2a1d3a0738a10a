/**
 * The grade cache port, stored in the database so a rescore costs nothing. The cache only
 * saves judge calls: a database that stays away longer than the retries is a miss on read and
 * a skipped write, never a failed item (the grade itself is in hand).
 */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { gradeCache } from "../../db/schema";
import type { GradeCache } from "../judges/grade-cache";
import { isBusy, retryBusy, writeTx } from "./db-busy";

/** A transient failure after the retries reads as `fallback`; any other error is thrown. */
async function orElse<T>(op: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await retryBusy(op);
  } catch (err) {
    if (isBusy(err)) return fallback;
    throw err;
  }
}

export function createDbGradeCache(db: Db, now: () => Date): GradeCache {
  return {
    get: (key) =>
      orElse(async () => {
        const [row] = await db.select({ grade: gradeCache.grade }).from(gradeCache).where(eq(gradeCache.key, key)).limit(1);
        return row?.grade;
      }, undefined),
    set: (key, grade) => orElse(() => writeTx(db, async (tx) => void (await tx.insert(gradeCache).values({ key, grade, createdAt: now() }).onConflictDoNothing())), undefined),
  };
}
