import type { Metadata } from "next";
import Link from "next/link";
import { findBenchmarkVersion } from "@/lib/queries/benchmark-info";
import { pageDb } from "@/lib/queries/db";
import { JsonBlock } from "@/components/common/json-block";
import { Notice } from "@/components/common/notice";
import { PageHeader, Section } from "@/components/common/page-header";
import { firstParam, type SearchParams } from "@/components/common/search-params";
import { buttonClass, codeClass, controlClass, linkClass, secondaryButtonClass } from "@/components/common/styles";
import { issueFormUrl, ISSUE_TEMPLATE_FILE, type PrefillField } from "@/lib/github/issue-form-url";
import { SUBMISSION_FORM } from "@/lib/github/issue-form";
import { submissionFormRepo } from "@/lib/submissions/github-settings";
import { maintainerSignedIn } from "@/app/admin/maintainer";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "How to submit" };

/** The issue form's fields a submitter may fill in here first; the link carries them to GitHub. */
const PREFILL: readonly { field: PrefillField; multiline?: boolean }[] = [{ field: "agentName" }, { field: "maintainer" }, { field: "models", multiline: true }, { field: "zipUrl" }];

/**
 * "5. Send it": the link to the benchmark repository's submission issue form (GITHUB_REPOSITORY),
 * prefilled from the small form below it (a GET to this page: no JavaScript, and the values only
 * ever go into the link). Without one, the public reads that submissions go to the maintainers;
 * only a signed-in maintainer reads what to set (setup is no business of a submitter's).
 */
function IssueFormLink({ params, maintainer }: { params: SearchParams; maintainer: boolean }) {
  const form = submissionFormRepo();
  if (!form.repo) {
    if (!maintainer) {
      return (
        <p className="text-sm" data-testid="no-issue-form">
          This board takes no submissions by GitHub issue yet: ask its maintainers where to send the link to your bundle.
        </p>
      );
    }
    return (
      <Notice title="No issue form is linked on this server">
        You see this because you are signed in as a maintainer. Set <span className={`${codeClass} break-all`}>GITHUB_REPOSITORY=owner/name</span> to the benchmark repository that
        holds <span className={`${codeClass} break-all`}>.github/ISSUE_TEMPLATE/{ISSUE_TEMPLATE_FILE}</span>, and this page links to its form.
        {form.problem === "invalid" ? " It is set now, but not to a repository name of the form owner/name." : ""}
      </Notice>
    );
  }
  const values = Object.fromEntries(PREFILL.map(({ field }) => [field, firstParam(params, SUBMISSION_FORM[field].id) ?? ""])) as Record<PrefillField, string>;
  const prefilled = Object.values(values).some(Boolean);
  const url = issueFormUrl(form.repo, values)!;
  const repoName = `${form.repo.owner}/${form.repo.repo}`;
  return (
    <div className="space-y-3">
      <p className="text-sm">
        <a href={url} className={`${buttonClass} inline-block`} data-testid="issue-form-link">
          Open a submission issue on {repoName}
        </a>
        <span className="ml-2 text-slate-600 dark:text-slate-400">(GitHub{prefilled ? ", with the fields below filled in" : ""})</span>
      </p>
      <details className="text-sm" open={prefilled}>
        <summary className="cursor-pointer">Fill in some of the form here first</summary>
        <form method="get" action="/submit#send" className="mt-3 grid max-w-xl gap-3">
          {PREFILL.map(({ field, multiline }) => {
            const { id, label } = SUBMISSION_FORM[field];
            return (
              <div key={id} className="flex flex-col gap-1">
                <label htmlFor={`prefill-${id}`} className="font-medium">
                  {label}
                </label>
                {multiline ? (
                  <textarea id={`prefill-${id}`} name={id} defaultValue={values[field]} rows={2} maxLength={1000} className={controlClass} />
                ) : (
                  <input id={`prefill-${id}`} name={id} defaultValue={values[field]} maxLength={1000} className={controlClass} />
                )}
              </div>
            );
          })}
          {typeof params.benchmark === "string" ? <input type="hidden" name="benchmark" value={params.benchmark} /> : null}
          <button className={`${secondaryButtonClass} justify-self-start`}>Put these in the link</button>
        </form>
      </details>
    </div>
  );
}

const RECORD = [
  {
    uuid: "a098722c-818b-49cc-81b7-50910203af7f",
    domain: "harbor",
    status: "success",
    error: "",
    duration_s: 3.27,
    output: [
      {
        turn_id: 1,
        query: "And how long is it?",
        answer: "It is 396.39 metres long.",
        sequence: { tool_call: [{ name: "get_ships_by_name", arguments: { name: "Azure Pearl" } }] },
      },
    ],
  },
];

const METADATA = {
  agent_name: "my-agent",
  models: ["provider/model-name"],
  maintainer: "Your name or team",
  description: "One or two sentences on how the agent works.",
  code: "https://github.com/you/my-agent",
  paper: "https://example.org/report.pdf",
};

const OUTPUTS = {
  "incident-17": { generated_answer: "Three forklifts crossed dock 4.", tool_calls: [{ step: 1, name: "search_clips", params: { camera: "dock-4" } }], report_path: "reports/incident-17.md" },
  "conv-dock_turn_2": { generated_answer: "Clip 0712 shows the white truck.", timestamps: [1000.0, 1004.5] },
};

export default async function SubmitPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const maintainer = await maintainerSignedIn();
  const found = await findBenchmarkVersion(await pageDb(), firstParam(params, "benchmark"));
  const info = found?.info;
  const dirs = info?.capabilities.map((c) => c.directory) ?? ["capability_1_bi_apis", "capability_2_dashboard_apis", "capability_3_multihop_reasoning", "capability_4_multiturn"];
  const tree = ["my-agent/", "  metadata.json", ...dirs.flatMap((d) => [`  ${d}/`, "    <domain>.json", "    …"])].join("\n");
  const evaluated = info?.capabilities.filter((c) => c.scorer !== "waterfall") ?? [];

  return (
    <div className="max-w-4xl space-y-8">
      <PageHeader
        title="How to submit"
        lede={
          <>
            Send the raw outputs of your agent, not scores. Agentboard validates the bundle, replays every tool call against the benchmark&apos;s own tool servers, scores each item with the
            waterfall and publishes the result with confidence intervals after a maintainer approves it.
            {info ? ` The default benchmark is ${info.title} v${info.version}.` : ""}
          </>
        }
      />

      <Section id="layout" title="1. Lay out the bundle">
        <p className="text-sm">
          One folder (or a <span className={codeClass}>.zip</span> of it) with a folder per capability and one <span className={codeClass}>&lt;domain&gt;.json</span> file per domain inside it.
          A single wrapping folder such as <span className={codeClass}>output/</span> is fine. A capability you leave out is shown as “—” and counts 0 in the overall score, and the entry is
          marked partial.
        </p>
        <JsonBlock value={tree} label="Bundle layout" full />
        {info ? (
          <ul className="list-disc space-y-1 pl-6 text-sm">
            {info.capabilities.map((c) => (
              <li key={c.id}>
                <span className={codeClass}>{c.directory}/</span>: {c.label}
                {c.scorer !== "waterfall" ? ` (scored by the ${c.scorer} evaluator: an outputs file, see below)` : ""}
              </li>
            ))}
          </ul>
        ) : null}
      </Section>

      <Section id="records" title="2. Write one record per dialogue">
        <p className="text-sm">
          Each <span className={codeClass}>&lt;domain&gt;.json</span> is a JSON array of records in VAKRA&apos;s output shape: the dialogue&apos;s <span className={codeClass}>uuid</span> and{" "}
          <span className={codeClass}>domain</span> (the file&apos;s name), <span className={codeClass}>status</span> (<span className={codeClass}>success</span> or{" "}
          <span className={codeClass}>error</span>), <span className={codeClass}>error</span>, <span className={codeClass}>duration_s</span>, and <span className={codeClass}>output</span>: one
          entry per turn with <span className={codeClass}>turn_id</span>, <span className={codeClass}>query</span>, <span className={codeClass}>answer</span> and the tool calls made, in order, in{" "}
          <span className={codeClass}>sequence.tool_call</span>. Every uuid of the ground truth should appear once; a missing one scores 0.
        </p>
        <JsonBlock value={RECORD} label="Example record" full />
        {evaluated.length > 0 ? (
          <>
            <p className="text-sm">
              The folders of capabilities scored by an evaluator ({evaluated.map((c) => c.directory).join(", ")}) hold outputs files instead: per domain, an object keyed by item id (a
              conversation&apos;s turns as <span className={codeClass}>&lt;id&gt;_&lt;turn_id&gt;</span>, every turn, since earlier turns are the history of later ones), or a list of{" "}
              <span className={codeClass}>{"{id, ...}"}</span> records. Each output may carry <span className={codeClass}>generated_answer</span>, <span className={codeClass}>tool_calls</span>{" "}
              (<span className={codeClass}>{"{step, name, params}"}</span>) or the raw <span className={codeClass}>intermediate_steps</span>, <span className={codeClass}>timestamps</span>, and a{" "}
              <span className={codeClass}>report</span> (a JSON object or markdown) or <span className={codeClass}>report_path</span>, a file in a subfolder, relative to the outputs file.
            </p>
            <JsonBlock value={OUTPUTS} label="Example outputs file" full />
          </>
        ) : null}
      </Section>

      <Section id="metadata" title="3. Describe the entry in metadata.json">
        <p className="text-sm">
          At the bundle root. <span className={codeClass}>agent_name</span>, <span className={codeClass}>models</span>, <span className={codeClass}>maintainer</span> and{" "}
          <span className={codeClass}>description</span> are shown on the entry&apos;s page; <span className={codeClass}>url</span>, <span className={codeClass}>paper</span>,{" "}
          <span className={codeClass}>code</span>, <span className={codeClass}>homepage</span> and <span className={codeClass}>repository</span> become links.
        </p>
        <JsonBlock value={METADATA} label="Example metadata.json" />
      </Section>

      <Section id="validate" title="4. Validate it locally">
        <p className="text-sm">From a checkout of Agentboard, with the benchmark folder (benchmark.yaml and groundtruth/):</p>
        <JsonBlock value={"./agentboard validate <bundle> --benchmark <dir>"} label="Validate command" />
        <p className="text-sm">
          It checks the layout, every record and turn, duplicate and unknown uuids, and coverage per capability and domain, and prints each problem with its file and JSON path. Add{" "}
          <span className={codeClass}>--json</span> for a machine-readable report. A bundle with errors is marked invalid and not scored.
        </p>
      </Section>

      <Section id="send" title="5. Send it">
        <p className="text-sm">
          Upload the ZIP where it can be downloaded without signing in (a GitHub release, Hugging Face or Zenodo), then open a <span className="font-medium">Leaderboard submission</span> issue in
          the benchmark&apos;s repository (<em>New issue</em>) and paste the link. A bot comment on the issue follows the submission: the validation report, scoring progress, the capability table
          and the maintainers&apos; decision. To replace the bundle, upload a new ZIP and edit the link in the issue; comment <code className={codeClass}>/withdraw</code> to take the entry back.
        </p>
        <IssueFormLink params={params} maintainer={maintainer} />
        <p className="text-sm">
          Track it on the{" "}
          <Link href="/queue" className={linkClass}>
            queue
          </Link>
          ; what changes on the board is in the{" "}
          <Link href="/changelog" className={linkClass}>
            changelog
          </Link>
          . How items are scored is on the{" "}
          <Link href="/about" className={linkClass}>
            methodology page
          </Link>
          .
        </p>
      </Section>
    </div>
  );
}
