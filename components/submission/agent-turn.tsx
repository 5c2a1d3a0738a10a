/** The agent's scored turn: query, answer, tool calls and the responses the replay produced (waterfall items only). */
import type { ItemDetail, ItemGroundTruth } from "@/lib/queries/types";
import { JsonBlock } from "@/components/common/json-block";
import { outcomeOf } from "@/lib/scoring/outcome";
import { codeClass } from "@/components/common/styles";

function ToolCalls({ calls, label }: { calls: ItemDetail["calls"]; label: string }) {
  if (calls.length === 0) return <p className="text-sm text-slate-600 dark:text-slate-400">No tool calls.</p>;
  return (
    <ol className="space-y-2" aria-label={label}>
      {calls.map((c, i) => (
        <li key={i} className="space-y-1">
          <p className="text-sm">
            <span className="text-slate-500 dark:text-slate-400">{i + 1}.</span> <span className={codeClass}>{c.name}</span>
          </p>
          <JsonBlock value={c.arguments} label={`Arguments of call ${i + 1}, ${c.name}`} />
        </li>
      ))}
    </ol>
  );
}

/** "The first 50 of 900 calls are shown." when a list was cut to the page limit. */
function More({ shown, total, noun }: { shown: number; total: number | undefined; noun: string }) {
  if (total === undefined || total <= shown) return null;
  return (
    <p className="text-sm text-slate-600 dark:text-slate-400">
      The first {shown} of {total.toLocaleString("en-US")} {noun} are shown.
    </p>
  );
}

export function AgentTurn({ item, replayed }: { item: ItemDetail; replayed: boolean }) {
  if (!item.hasTurn) {
    const o = outcomeOf(item);
    // Missing items, agent and replay errors, and a missing turn have no turn of the agent's to show: say what happened.
    if (o.term.countsAs === "0" || o.term.id === "missing_turn") {
      return (
        <div className="space-y-2 text-sm">
          {item.query ? (
            <p>
              <span className="font-medium">Question asked:</span> <span className="whitespace-pre-wrap">{item.query}</span>
            </p>
          ) : null}
          <p>
            <span className="font-medium">{o.term.label}:</span> {o.term.meaning} {item.reason ? <>Recorded reason: {item.reason}. </> : null}It counts {o.counts}.
          </p>
        </div>
      );
    }
    return (
      <p className="text-sm text-slate-600 dark:text-slate-400">
        The agent&apos;s turn was not stored with this run&apos;s results, so only the verdicts are shown. A rescore keeps the turn and the replayed responses.
      </p>
    );
  }
  return (
    <div className="space-y-4">
      <div>
        <h3 className="text-sm font-semibold">Query</h3>
        <p className="mt-1 text-sm whitespace-pre-wrap">{item.query || "—"}</p>
      </div>
      <div>
        <h3 className="text-sm font-semibold">Answer</h3>
        {typeof item.answer === "string" ? <p className="mt-1 text-sm whitespace-pre-wrap">{item.answer}</p> : <JsonBlock value={item.answer} label="Answer" />}
      </div>
      <div className="space-y-2">
        <h3 className="text-sm font-semibold">Tool calls ({item.callCount ?? item.calls.length})</h3>
        <ToolCalls calls={item.calls} label="Tool calls" />
        <More shown={item.calls.length} total={item.callCount} noun="calls" />
      </div>
      {replayed ? (
        <details className="rounded-md border border-slate-200 p-3 dark:border-slate-800">
          <summary className="cursor-pointer text-sm font-semibold focus-visible:outline-2 focus-visible:outline-sky-600">Replayed tool responses ({item.responseCount ?? item.responses.length})</summary>
          <div className="mt-3 space-y-2">
            {item.responses.length === 0 ? (
              <p className="text-sm text-slate-600 dark:text-slate-400">No responses.</p>
            ) : (
              item.responses.map((r, i) => <JsonBlock key={i} value={r} label={`Response ${i + 1}`} />)
            )}
            <More shown={item.responses.length} total={item.responseCount} noun="responses" />
          </div>
        </details>
      ) : null}
    </div>
  );
}

export function GroundTruth({ truth }: { truth: NonNullable<ItemGroundTruth> }) {
  return (
    <div className="space-y-4">
      <div>
        <h3 className="text-sm font-semibold">Expected answer</h3>
        {typeof truth.answer === "string" ? <p className="mt-1 text-sm whitespace-pre-wrap">{truth.answer}</p> : <JsonBlock value={truth.answer} label="Expected answer" />}
      </div>
      <div className="space-y-2">
        <h3 className="text-sm font-semibold">Expected tool calls ({truth.calls.length})</h3>
        <ToolCalls calls={truth.calls} label="Expected tool calls" />
      </div>
    </div>
  );
}
