/** The run's manifest: what decides its numbers, and how to re-derive them with `agentboard verify` (server component). */
import { JsonBlock } from "@/components/common/json-block";
import { Section } from "@/components/common/page-header";
import { codeClass, linkClass } from "@/components/common/styles";
import { Row } from "@/components/submission/submission-meta";
import type { RunManifest } from "@/lib/scoring/manifest";

/** A hash shortened to 12 characters; the whole value in its title and in the JSON below. */
function Hash({ value }: { value: string | null }) {
  if (!value) return <span className="text-slate-500 dark:text-slate-400">none</span>;
  return (
    <code className={codeClass} title={value}>
      {value.slice(0, 12)}
    </code>
  );
}

const ENDPOINT: Record<RunManifest["judge"]["endpoint"], string> = { none: "no endpoint", local: "local endpoint", remote: "remote endpoint" };

/**
 * The bundle anyone may download (null: the entry is not published; "off": its benchmark offers no
 * downloads). `kind` says which sha256 it answers to: the ZIP's own, or the unzipped folder's.
 */
export type BundleOffer = { href: string; kind: "zip" | "folder" } | "off" | null;

function BundleNote({ offer }: { offer: BundleOffer }) {
  if (offer === null) return null;
  if (offer === "off") {
    return (
      <p className="text-sm" data-bundle-offer="off">
        This benchmark does not offer bundles for download (<code className={codeClass}>bundleDownload: false</code> in its benchmark.yaml): ask the submitter for the bundle.
      </p>
    );
  }
  return (
    <p className="text-sm" data-bundle-offer={offer.kind}>
      <a href={offer.href} className={linkClass} download>
        Download the bundle (ZIP)
      </a>
      {offer.kind === "zip" ? (
        <> : the ZIP as it was submitted; its sha256 is the bundle&apos;s above.</>
      ) : (
        <>
          : the bundle was submitted as a folder, so this is a ZIP of its files. The sha256 above is the folder&apos;s (of its files&apos; sorted paths and sha256s), not the ZIP&apos;s: unzip it,
          and <code className={codeClass}>./agentboard validate &lt;folder&gt;</code> prints that sha256; give <code className={codeClass}>verify</code> the folder.
        </>
      )}
    </p>
  );
}

export function Reproducibility({ manifest, entryId, bundle = null }: { manifest: RunManifest; entryId: number; bundle?: BundleOffer }) {
  const m = manifest;
  const prompts = Object.entries(m.judge.promptHashes);
  return (
    <Section
      id="reproducibility"
      title="Reproducibility"
      description="Everything that decides this run's numbers. With the public bundle, the benchmark and the exported verdicts, anyone can score it again and check that each number comes out the same."
    >
      <dl className="divide-y divide-slate-100 dark:divide-slate-800">
        <Row term="Bundle">
          sha256 <Hash value={m.bundle.sha256} />
          {bundle && bundle !== "off" ? (
            <>
              {" · "}
              <a href={bundle.href} className={linkClass} download>
                download
              </a>
            </>
          ) : null}
        </Row>
        <Row term="Benchmark">
          {m.benchmark.slug} {m.benchmark.version} · content <Hash value={m.benchmark.contentHash} />
          {m.benchmark.parts ? (
            <span className="block text-xs text-slate-600 dark:text-slate-400">
              ground truth <Hash value={m.benchmark.parts.groundTruth} /> · spec <Hash value={m.benchmark.parts.spec} /> · environment <Hash value={m.benchmark.parts.environment} /> · other files <Hash value={m.benchmark.parts.files} />
            </span>
          ) : null}
        </Row>
        <Row term="Ground-truth replay">
          <Hash value={m.groundTruthReplay.hash} /> ({m.groundTruthReplay.source}, {m.groundTruthReplay.items.toLocaleString("en-US")} items)
        </Row>
        <Row term="Replay mode">{m.replay.mode}</Row>
        <Row term="Agentboard">
          {m.agentboard.version}
          {m.agentboard.commit ? (
            <>
              {" "}
              · commit <code className={codeClass}>{m.agentboard.commit}</code>
            </>
          ) : (
            " · commit not recorded"
          )}
        </Row>
        <Row term="Judge">
          {m.judge.kind}
          {m.judge.model ? ` · ${m.judge.model}` : ""} · {ENDPOINT[m.judge.endpoint]}
          {prompts.length > 0 ? (
            <span className="block text-xs text-slate-600 dark:text-slate-400">
              prompts:{" "}
              {prompts.map(([name, hash], i) => (
                <span key={name}>
                  {i > 0 ? " · " : ""}
                  {name} <Hash value={hash} />
                </span>
              ))}
            </span>
          ) : null}
        </Row>
        <Row term="Bootstrap seed">{m.seed}</Row>
        <Row term="Trials">{m.trials}</Row>
        <Row term="Verdicts">
          digest <Hash value={m.verdicts.digest} /> over {m.verdicts.items.toLocaleString("en-US")} items
          {m.verdicts.grades > 0 ? (
            <>
              {" "}
              · {m.verdicts.grades.toLocaleString("en-US")} judge grades <Hash value={m.verdicts.gradesDigest} />
            </>
          ) : null}
        </Row>
      </dl>
      <BundleNote offer={bundle} />
      <p className="text-sm">
        <a href={`/api/submissions/${entryId}/verdicts`} className={linkClass}>
          This run&apos;s verdicts as JSON
        </a>{" "}
        (re-scoring with them needs no LLM). To check every number, run <code className={codeClass}>verify</code> from a checkout of Agentboard. It reads the run&apos;s manifest and
        verdicts from this server through the page&apos;s URL, scores the bundle again, and needs one thing this page does not give: the benchmark&apos;s folder (its ground truth and tool
        environment), from the benchmark&apos;s maintainers.
      </p>
      <JsonBlock label="How to verify this entry" value={`./agentboard verify <this page's URL> --bundle <${bundle && bundle !== "off" && bundle.kind === "folder" ? "the unzipped folder" : "bundle.zip"}> --benchmark <benchmark folder>`} full />
      <details className="text-sm">
        <summary className="cursor-pointer">The whole manifest (JSON)</summary>
        <JsonBlock label="Run manifest" value={m} />
      </details>
    </Section>
  );
}
