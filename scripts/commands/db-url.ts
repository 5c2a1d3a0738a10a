/** A database as the user named it, for messages: a postgres:// URL's password never printed. */
export function redactUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:@/]*):[^@/]*@/i, "$1:***@");
}

/** The database a command uses: `--db`, else AGENTBOARD_DATABASE_URL, else AGENTBOARD_DB, else the default file (as db/client.ts resolves it). */
export function databaseName(flag: string | undefined): string {
  return redactUrl(flag ?? (process.env.AGENTBOARD_DATABASE_URL || undefined) ?? process.env.AGENTBOARD_DB ?? ".agentboard/agentboard.db");
}
