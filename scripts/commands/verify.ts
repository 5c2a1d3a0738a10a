/**
 * `verify <entry-id | entry URL | results.json> --bundle <zip-or-folder> --benchmark <dir>`:
 * scores the bundle again and checks every number against the run as it was recorded.
 *
 * The recorded run (its manifest, item scores and judge verdicts) comes from the local database
 * (an entry id; `--db`), from a server (an entry's URL: `GET /api/submissions/<id>` and its
 * `/verdicts` pages, each with a timeout and a size cap), or from a `score --out` results file
 * (verdicts from `--verdicts`, else `verdicts.json` beside it, else the grades its items carry).
 * The bundle is re-scored with the run's replay mode, and its judge replayed from the verdicts
 * (no LLM, no network); a rules run is simply judged by rules again. Exit 0 when every number is
 * identical, 1 when something differs (the report says what and why), 2 on usage errors.
 */
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { Benchmark } from "../../lib/benchmark/load-benchmark";
import type { JudgeSettings } from "../../lib/scoring/judges/judge-settings";
import { gradesOf, parseManifest, type RunManifest } from "../../lib/scoring/manifest";
import type { ScoreResults } from "../../lib/scoring/score-results";
import { scoreBundle } from "../../lib/scoring/score-bundle";
import { buildVerdictExport, exportGrade, mergeVerdictPages, parseVerdictExport, readVerdictFile, type ExportedGrade, type VerdictExport } from "../../lib/scoring/verdict-export";
import { compareRuns, DIFFERENCE_KINDS, type DifferenceKind, type VerifyInput, type VerifyReport } from "../../lib/scoring/verify-report";
import { renderReportMarkdown } from "../../lib/validate/report";
import { agentboardVersion } from "./build-info";
import { CliError, usageError } from "./cli-errors";
import { databaseName } from "./db-url";
import { graderOrFail } from "./judge-options";
import { bundleOrFail, loadBenchmarkOrFail } from "./load";
import { createProgress } from "./progress";
import { replayFor } from "./score";

export interface VerifyFlags {
  bundle: string;
  benchmark: string;
  verdicts?: string;
  db?: string;
  json?: boolean;
  quiet?: boolean;
}

/** The run as recorded, wherever it came from. */
interface Recorded {
  source: string;
  manifest: RunManifest;
  items: VerifyInput["recorded"]["items"];
  /** The grades the run used, when the source says (a server's export, a results file's items). */
  grades: Record<string, ExportedGrade> | null;
  /** The verdicts to answer from when no --verdicts is given. */
  verdicts: VerdictExport;
}

/** Each HTTP request's time limit and size cap. */
const FETCH_TIMEOUT_MS = 30_000;
const MAX_RESPONSE_BYTES = 64 * 1024 ** 2;
/** The most verdict pages followed (VERDICT_PAGE_SIZE items each). */
const MAX_PAGES = 1_000;
const MAX_RESULTS_BYTES = 1024 ** 3;

export async function verifyCommand(target: string, flags: VerifyFlags): Promise<number> {
  await bundleOrFail(flags.bundle);
  const recorded = await loadRecorded(target, flags);
  const verdicts = flags.verdicts ? verdictFileOrFail(flags.verdicts) : recorded.verdicts;
  const benchmark = await loadBenchmarkOrFail(flags.benchmark);
  const mode = recorded.manifest.replay.mode;
  if (mode === "mcp" && !benchmark.spec.capabilities.some((c) => c.environment)) throw usageError("the run was replayed over MCP, but this benchmark declares no capabilities[].environment");
  const rules = recorded.manifest.judge.kind === "rules";
  const settings: JudgeSettings = rules ? { kind: "rules", concurrency: 1 } : { kind: "verdicts", concurrency: 1 };
  const grader = graderOrFail(settings, { verdicts, keySalt: benchmark.content?.keySalt ?? "" });
  if (!flags.quiet) process.stderr.write(`verifying ${recorded.source}: ${rules ? "rules judge, run again" : `judge ${verdicts.judge.id}, answered from ${flags.verdicts ?? "the run's exported verdicts"}`}, replay ${mode}\n`);
  const replay = await replayFor(mode, benchmark);
  let results: ScoreResults;
  try {
    const run = await scoreBundle(benchmark, flags.bundle, { grader, replay, agentboard: agentboardVersion(), ...(flags.quiet ? {} : { onProgress: createProgress("re-scoring") }) });
    if (run.kind !== "scored") return invalidBundle(run.report, recorded, flags);
    results = run.results;
  } finally {
    await replay.close();
  }
  const report = compareRuns({
    recorded: { manifest: recorded.manifest, items: recorded.items, grades: recorded.grades },
    verdicts: rules ? null : verdicts,
    rescored: { manifest: results.manifest, items: results.items, agentboard: agentboardVersion() },
  });
  process.stdout.write(flags.json ? `${JSON.stringify({ ...report, source: recorded.source }, null, 2)}\n` : renderVerifyReport(report, recorded.source, recorded.manifest, benchmark));
  return report.identical ? 0 : 1;
}

function invalidBundle(report: Parameters<typeof renderReportMarkdown>[0], recorded: Recorded, flags: VerifyFlags): number {
  process.stderr.write(renderReportMarkdown(report));
  const message = `the bundle is invalid (${report.summary.errors} error(s)); the run's bundle was ${recorded.manifest.bundle.sha256.slice(0, 12)}`;
  process.stdout.write(flags.json ? `${JSON.stringify({ schema: "agentboard.verify/1", identical: false, kinds: ["bundle"], run: [{ kind: "bundle", message }], source: recorded.source })}\n` : `DIFFERENT (bundle): ${message}\n`);
  return 1;
}

/** Where the recorded run comes from: an entry id, an entry's URL, or a results file. */
async function loadRecorded(target: string, flags: VerifyFlags): Promise<Recorded> {
  if (/^[1-9][0-9]{0,15}$/.test(target)) return fromDatabase(Number(target), flags.db);
  if (/^https?:\/\//i.test(target)) return fromServer(target);
  if (statSync(target, { throwIfNoEntry: false })?.isFile()) return fromResultsFile(target, flags);
  throw usageError(`expected an entry id, an entry's URL (http(s)://…/submissions/<id>) or a results.json file, got "${target}"`);
}

function manifestOrFail(value: unknown, where: string): RunManifest {
  const r = parseManifest(value);
  if (!r.ok) throw usageError(`${where}: ${r.error}`);
  return r.manifest;
}

const noManifest = (what: string) => usageError(`${what} has no manifest (scored before manifests were recorded): rescore it first`);

async function fromDatabase(id: number, dbUrl: string | undefined): Promise<Recorded> {
  // The database and its queries are loaded only for this form.
  const [{ closeDatabase, connectDatabase }, { submissions }, { eq }, { getRunManifest, getRunVerdicts }] = await Promise.all([
    import("../../db/client"),
    import("../../db/schema"),
    import("drizzle-orm"),
    import("../../lib/queries/run-verdicts"),
  ]);
  const db = await connectDatabase(dbUrl);
  try {
    const manifest = await getRunManifest(db, id);
    if (!manifest) {
      const [exists] = await db.select({ id: submissions.id }).from(submissions).where(eq(submissions.id, id)).limit(1);
      throw exists ? noManifest(`entry ${id}`) : usageError(`no entry ${id} in the database ${databaseName(dbUrl)}`);
    }
    const pages: VerdictExport[] = [];
    // The database's owner sees everything: the private half is in.
    for (let page = 1; page <= MAX_PAGES; page++) {
      const v = await getRunVerdicts(db, id, { page, includePrivate: true });
      if (!v) break;
      pages.push(v);
      if (page >= v.page.pages) break;
    }
    return recordedFrom(`entry ${id} (local database)`, manifest, mergeVerdictPages(pages));
  } finally {
    await closeDatabase(db);
  }
}

function recordedFrom(source: string, manifest: RunManifest, verdicts: VerdictExport): Recorded {
  return { source, manifest, items: verdicts.items, grades: verdicts.grades, verdicts };
}

/** `http(s)://host[/base]/submissions/<id>` (or `/api/submissions/<id>`): the API's base and the id. */
function entryUrl(raw: string): { api: string; id: number } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw usageError(`not a URL: ${raw}`);
  }
  const m = /^(.*?)\/(?:api\/)?submissions\/([1-9][0-9]{0,15})(?:\/.*)?$/.exec(url.pathname);
  if (!m) throw usageError(`expected an entry's URL such as https://host/submissions/12, got ${raw}`);
  return { api: `${url.origin}${m[1]}/api/submissions/${m[2]}`, id: Number(m[2]) };
}

async function fromServer(raw: string): Promise<Recorded> {
  const { api } = entryUrl(raw);
  const entry = (await getJson(api)) as { manifest?: unknown } | null;
  if (!entry?.manifest) throw noManifest(raw);
  const manifest = manifestOrFail(entry.manifest, api);
  const pages: VerdictExport[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const parsed = parseVerdictExport(await getJson(`${api}/verdicts?page=${page}`));
    if (!parsed.ok) throw new CliError(`${api}/verdicts?page=${page}: ${parsed.error}`, 2);
    pages.push(parsed.verdicts);
    if (page >= parsed.verdicts.page.pages) break;
  }
  return recordedFrom(raw, manifest, mergeVerdictPages(pages));
}

/** GET a JSON document, within FETCH_TIMEOUT_MS and MAX_RESPONSE_BYTES. */
async function getJson(url: string): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, { headers: { Accept: "application/json" }, redirect: "follow", signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  } catch (err) {
    throw new CliError(`cannot fetch ${url}: ${err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err)}`, 2);
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new CliError(`${url} answered ${res.status}${res.status === 404 ? " (no such entry, or it is not published)" : ""}`, 2);
  }
  const declared = Number(res.headers.get("content-length") ?? 0);
  if (declared > MAX_RESPONSE_BYTES) {
    await res.body?.cancel();
    throw new CliError(`${url} is ${declared} bytes; at most ${MAX_RESPONSE_BYTES} are read`, 2);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body?.getReader();
  try {
    while (reader) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_RESPONSE_BYTES) {
        await reader.cancel();
        throw new CliError(`${url} sent more than ${MAX_RESPONSE_BYTES} bytes`, 2);
      }
      chunks.push(value);
    }
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`reading ${url} failed: ${err instanceof Error ? err.message : String(err)}`, 2);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new CliError(`${url} did not answer JSON`, 2);
  }
}

function verdictFileOrFail(file: string): VerdictExport {
  try {
    return readVerdictFile(file);
  } catch (err) {
    throw usageError(err instanceof Error ? err.message : String(err));
  }
}

/** A `score --out` file: the manifest and items it holds; verdicts from --verdicts, beside it, or its items' grades. */
function fromResultsFile(file: string, flags: VerifyFlags): Recorded {
  const size = statSync(file).size;
  if (size > MAX_RESULTS_BYTES) throw usageError(`${file} is ${size} bytes; a results file may hold at most ${MAX_RESULTS_BYTES}`);
  let results: ScoreResults;
  try {
    results = JSON.parse(readFileSync(file, "utf8")) as ScoreResults;
  } catch (err) {
    throw usageError(`${file} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (results?.schema !== "agentboard.results/1" || !Array.isArray(results.items)) throw usageError(`${file} is not an Agentboard results file (score --out)`);
  if (!results.manifest) throw noManifest(file);
  const manifest = manifestOrFail(results.manifest, file);
  // The run's own grades, as its items carry them (your own run: the private half is in).
  const own = buildVerdictExport(results, results.items, { includePrivate: true });
  const beside = path.join(path.dirname(file), "verdicts.json");
  const verdicts = flags.verdicts ? own : statSync(beside, { throwIfNoEntry: false })?.isFile() ? verdictFileOrFail(beside) : own;
  const grades = Object.fromEntries([...gradesOf(results.items)].map(([k, g]) => [k, exportGrade(g, true)]));
  return { source: file, manifest, items: own.items, grades, verdicts };
}

const pct = (v: number | null) => (v === null ? "—" : v.toFixed(1));

function renderVerifyReport(r: VerifyReport, source: string, recorded: RunManifest, benchmark: Pick<Benchmark, "spec">): string {
  const lines: string[] = [];
  lines.push(r.identical ? `IDENTICAL: every number of ${source} was re-derived (${r.counts.items} items)` : `DIFFERENT (${r.kinds.join(", ")}): ${r.counts.different} of ${r.counts.items} items differ from ${source}`);
  const m = recorded;
  const what: Record<DifferenceKind, string> = {
    bundle: `sha256 ${m.bundle.sha256.slice(0, 12)}`,
    benchmark: `${m.benchmark.slug} ${m.benchmark.version}, content ${m.benchmark.contentHash?.slice(0, 12) ?? "unknown"}`,
    version: `agentboard ${m.agentboard.version}${m.agentboard.commit ? ` (commit ${m.agentboard.commit})` : ""}, seed ${m.seed}`,
    judge: `${m.judge.kind}${m.judge.model ? ` ${m.judge.model}` : ""}${m.verdicts.grades ? `, ${m.verdicts.grades} verdicts` : ""}`,
    replay: `${m.replay.mode}, ground truth ${m.groundTruthReplay.hash?.slice(0, 12) ?? "none"}`,
  };
  lines.push("", "The run as recorded, against here:");
  for (const kind of DIFFERENCE_KINDS) {
    const found = r.run.filter((d) => d.kind === kind);
    lines.push(`  ${kind.padEnd(10)} ${found.length ? "different" : "identical"}  ${what[kind]}`);
    for (const d of found) lines.push(`             ${d.message}`);
  }
  for (const n of r.notes) lines.push(`note: ${n}`);
  lines.push("", "Per capability (recorded → re-scored):");
  const order = (id: string) => benchmark.spec.capabilities.findIndex((c) => c.id === id);
  const label = (id: string) => benchmark.spec.capabilities.find((c) => c.id === id)?.label ?? id;
  for (const c of [...r.capabilities].sort((a, b) => order(a.capability) - order(b.capability))) {
    const numbers = c.identical ? pct(c.recorded) : `${pct(c.recorded)} → ${pct(c.rescored)}`;
    lines.push(`  ${c.identical ? "identical" : "different"}  ${label(c.capability)} (${c.capability}): ${numbers}, ${c.identical ? `${c.items} items` : `${c.different} of ${c.items} items differ`}`);
  }
  if (r.items.length) {
    lines.push("", "Items that differ (recorded → re-scored):");
    const shown = r.items.slice(0, 100);
    for (const i of shown) {
      const side = (s: typeof i.recorded) => (s ? `${s.status} ${s.stage} ${s.score}` : "absent");
      lines.push(`  ${i.capability}/${i.uuid}${i.trial > 1 ? ` (trial ${i.trial})` : ""}: ${side(i.recorded)} → ${side(i.rescored)} — ${i.why.map((w) => `${w.kind}: ${w.message}`).join("; ")}`);
    }
    if (r.items.length > shown.length) lines.push(`  … and ${r.items.length - shown.length} more (--json lists them all)`);
  }
  return `${lines.join("\n")}\n`;
}
