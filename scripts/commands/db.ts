/**
 * `db copy --from <sqlite file> --to <postgres url>`: moves an embedded install's database to
 * hosted mode (lib/submissions/db-copy.ts). The target is migrated first and must be empty.
 * Exit 0 when every row is copied, 1 when the copy failed (nothing was written), 2 on usage
 * errors (a missing source, a target that is not Postgres or already holds data).
 */
import { existsSync, statSync } from "node:fs";
import { closeDatabase, isPostgresUrl, openDatabase, openPostgres, type Db } from "../../db/client";
import { copyDatabase, TargetNotEmptyError, type TableProgress } from "../../lib/submissions/db-copy";
import { CliError, usageError } from "./cli-errors";
import { redactUrl } from "./db-url";

export interface DbCopyFlags {
  from: string;
  to: string;
  quiet?: boolean;
}

/** Progress lines for a big table: one every this many rows, besides the line when it is done. */
const PROGRESS_EVERY_ROWS = 100_000;

export async function dbCopyCommand(flags: DbCopyFlags): Promise<number> {
  if (!existsSync(flags.from) || !statSync(flags.from).isFile()) throw usageError(`--from: no SQLite database at ${flags.from}`);
  if (!isPostgresUrl(flags.to)) throw usageError(`--to must be a postgres:// URL, got "${redactUrl(flags.to)}"`);
  const log = flags.quiet ? () => {} : (line: string) => process.stderr.write(`${line}\n`);
  let shown = 0;
  const progress = (p: TableProgress) => {
    if (p.done) {
      log(`${p.table}: ${p.copied} row(s)`);
      shown = 0;
    } else if (p.copied - shown >= PROGRESS_EVERY_ROWS) {
      log(`${p.table}: ${p.copied}/${p.total} rows`);
      shown = p.copied;
    }
  };
  // Opening the source applies its pending migrations, so its tables are the ones copied into.
  const from = openDatabase(flags.from);
  let to: Db | undefined;
  try {
    to = await openPostgres(flags.to).catch((err: unknown) => {
      throw usageError(`cannot open ${redactUrl(flags.to)}: ${err instanceof Error ? err.message : String(err)}`);
    });
    log(`copying ${flags.from} into ${redactUrl(flags.to)}`);
    const copied = await copyDatabase(from, to, { onProgress: progress });
    const total = Object.values(copied).reduce((a, b) => a + b, 0);
    log(`copied ${total} row(s) in ${Object.keys(copied).length} tables`);
    process.stdout.write(`${JSON.stringify({ copied })}\n`);
    return 0;
  } catch (err) {
    if (err instanceof CliError) throw err;
    if (err instanceof TargetNotEmptyError) throw usageError(err.message);
    throw new CliError(`the copy failed, nothing was written: ${err instanceof Error ? err.message : String(err)}`, 1);
  } finally {
    await closeDatabase(from);
    if (to) await closeDatabase(to);
  }
}
