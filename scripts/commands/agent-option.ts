/**
 * `submit --agent <name>`: the name a maintainer gives on the command line is held to the issue
 * form's limits for the agent name (lib/github/issue-form.ts `parseAgentName`), so an entry's
 * name is bounded the same way however it arrives. A bad name is a usage error (exit 2).
 */
import { parseAgentName } from "../../lib/github/issue-form";
import { usageError } from "./cli-errors";

/** The trimmed name, or a usage error saying what the form expects. */
export function agentOptionOrFail(value: string): string {
  const r = parseAgentName(value);
  if (r.ok) return r.name;
  throw usageError(`--agent: ${r.expected} (the issue form's limits for the agent name; got ${value.length} characters)`);
}
