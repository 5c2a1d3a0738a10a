/** Opens a database the way pages do and prints how, with its data version (for the read-only test's child process). */
import { openPageDatabase } from "@/lib/queries/db";
import { dataVersion } from "@/lib/queries/memo";

const { db, mode } = openPageDatabase(process.argv[2]!);
const submissions = (db.$client.prepare("SELECT count(*) AS n FROM submissions").get() as { n: number }).n;
console.log(JSON.stringify({ mode, version: dataVersion(db), submissions }));
