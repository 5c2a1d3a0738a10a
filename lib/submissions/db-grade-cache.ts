/** The grade cache port, stored in the database so a rescore costs nothing. */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { gradeCache } from "../../db/schema";
import type { GradeCache } from "../scoring/judges/grade-cache";

export function createDbGradeCache(db: Db, now: () => Date): GradeCache {
  return {
    async get(key) {
      return db.select({ grade: gradeCache.grade }).from(gradeCache).where(eq(gradeCache.key, key)).get()?.grade;
    },
    async set(key, grade) {
      db.insert(gradeCache).values({ key, grade, createdAt: now() }).onConflictDoNothing().run();
    },
  };
}
