/**
 * Maintainer commands in issue comments: `/approve`, `/reject <reason>`, `/rescore`,
 * `/withdraw [reason]` and `/restore [reason]` (undoes a withdrawal), on the comment's first
 * non-blank line. Quoted lines (`> /approve`)
 * and code are not commands, so quoting a command in a reply does not repeat it. Each is
 * one of the review actions of lib/submissions/review.ts, which the intake applies.
 */
export type SlashCommand =
  | { name: "approve" }
  | { name: "reject"; reason: string }
  | { name: "rescore" }
  | { name: "withdraw"; reason: string }
  | { name: "restore"; reason: string };

export type SlashCommandName = SlashCommand["name"];

const NAMES = new Set<SlashCommandName>(["approve", "reject", "rescore", "withdraw", "restore"]);

/** The command in a comment, or null when its first non-blank line is not one of ours. */
export function parseSlashCommand(body: string): SlashCommand | null {
  const lines = body.replace(/\r\n?/g, "\n").split("\n");
  const first = lines.findIndex((l) => l.trim() !== "");
  if (first < 0) return null;
  const m = /^\/([a-z]+)(?:\s+(.*))?$/i.exec(lines[first]!.trim());
  if (!m) return null;
  const name = m[1]!.toLowerCase() as SlashCommandName;
  if (!NAMES.has(name)) return null;
  // The reason may go on over the following lines.
  const reason = [m[2] ?? "", ...lines.slice(first + 1)].join("\n").trim().slice(0, 2000);
  if (name === "reject" || name === "withdraw" || name === "restore") return { name, reason };
  return { name };
}
