/** An entry's name in the comparison: agent, id, "baseline" for the first, and its state when it is not published (maintainers only see those). */
import type { ComparedEntry } from "@/lib/queries/types";
import { StateBadge } from "@/components/common/state-badge";

export function EntryName({ entry, baseline, inline = false }: { entry: Pick<ComparedEntry, "id" | "agent" | "state">; baseline: boolean; inline?: boolean }) {
  return (
    <span className="break-words">
      <span className="font-semibold">{entry.agent}</span> <span className="font-normal text-slate-600 dark:text-slate-400">#{entry.id}</span>
      {entry.state !== "published" ? (
        <>
          {" "}
          <StateBadge state={entry.state} />
        </>
      ) : null}
      {baseline ? <span className={`${inline ? "ml-1 inline" : "block"} text-xs font-normal text-slate-600 dark:text-slate-400`}>{inline ? "(baseline)" : "baseline"}</span> : null}
    </span>
  );
}
