/** The judge verdict cache port, stored in the database so a rescore costs nothing. */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { judgeVerdicts } from "../../db/schema";
import type { VerdictCache } from "../scoring/judges/verdict-cache";

export function createDbVerdictCache(db: Db, now: () => Date): VerdictCache {
  return {
    async get(key) {
      const row = db.select().from(judgeVerdicts).where(eq(judgeVerdicts.key, key)).get();
      return row ? { pass: row.pass, score: row.score, explanation: row.explanation, promptHash: row.promptHash } : undefined;
    },
    async set(key, d) {
      db.insert(judgeVerdicts)
        .values({ key, pass: d.pass, score: d.score, explanation: d.explanation, promptHash: d.promptHash, createdAt: now() })
        .onConflictDoNothing()
        .run();
    },
  };
}
