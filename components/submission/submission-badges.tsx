/** The labels an entry earns: its state, server scoring and replay verification, partial coverage, integrity flags, demo. */
import type { SubmissionDetail } from "@/lib/queries/types";
import { FLAG_KIND_LABELS, flagKinds } from "@/lib/scoring/integrity-flags";
import { StateBadge, Tag } from "@/components/common/state-badge";

export function SubmissionBadges({ detail }: { detail: SubmissionDetail }) {
  const run = detail.run;
  return (
    <ul className="flex flex-wrap items-center gap-2" aria-label="Badges">
      <li>
        <StateBadge state={detail.state} />
      </li>
      {run?.status === "completed" ? (
        <li>
          <Tag tone="good" title="Agentboard re-scored the raw outputs; submitted numbers are never used">
            ✓ scored by server
          </Tag>
        </li>
      ) : null}
      {run?.verified ? (
        <li>
          <Tag tone="good" title="Every tool call was replayed against the benchmark's tool servers">
            ✓ replay verified
          </Tag>
        </li>
      ) : run?.status === "completed" ? (
        <li>
          <Tag tone="warn" title={`Tool responses came from ${run.replay === "recorded" ? "the bundle itself" : "no replay"}, not a replay`}>
            unverified replay
          </Tag>
        </li>
      ) : null}
      {run?.overall && !run.overall.complete ? (
        <li>
          <Tag tone="warn" title="Some capabilities were not submitted; they count 0 in the overall score">
            partial
          </Tag>
        </li>
      ) : null}
      {detail.integrity?.flags.length ? (
        <li>
          <a href="#integrity" className="rounded focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600">
            <Tag tone="warn" title="Integrity flags: see the Integrity section for what triggered each">
              {`⚑ flagged: ${flagKinds(detail.integrity.flags).map((k) => FLAG_KIND_LABELS[k]).join(", ")}`}
            </Tag>
          </a>
        </li>
      ) : null}
      {detail.isDemo ? (
        <li>
          <Tag title="A generated demo entry, not a real agent">demo</Tag>
        </li>
      ) : null}
    </ul>
  );
}
