/** The grade cache port, stored in the database so a rescore costs nothing. */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { gradeCache } from "../../db/schema";
import type { GradeCache } from "../scoring/judges/grade-cache";
import { writeTx } from "./db-busy";

export function createDbGradeCache(db: Db, now: () => Date): GradeCache {
  return {
    async get(key) {
      const [row] = await db.select({ grade: gradeCache.grade }).from(gradeCache).where(eq(gradeCache.key, key)).limit(1);
      return row?.grade;
    },
    async set(key, grade) {
      await writeTx(db, (tx) => tx.insert(gradeCache).values({ key, grade, createdAt: now() }).onConflictDoNothing());
    },
  };
}
