/** Opens a database the way pages do and prints how, with its data version (for the read-only test's child process). */
import { count } from "drizzle-orm";
import { submissions } from "@/db/schema";
import { openPageDatabase } from "@/lib/queries/db";
import { dataVersion } from "@/lib/queries/memo";

const { db, mode } = openPageDatabase(process.argv[2]!);
const [row] = await db.select({ n: count() }).from(submissions);
console.log(JSON.stringify({ mode, version: await dataVersion(db), submissions: row!.n }));
