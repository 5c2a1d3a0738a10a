/**
 * `verify <entry-id | entry URL | results.json> --bundle <zip-or-folder> --benchmark <dir>`:
 * scores the bundle again and checks every number against the run as it was recorded.
 *
 * The recorded run (its manifest, item scores and judge verdicts) comes from the local database
 * (an entry id; `--db`), from a server (an entry's URL: `GET /api/submissions/<id>` and its
 * `/verdicts` pages, each bounded by fetch-json.ts and the page cap, all from the entry's own
 * origin and of the entry's own run; serverLimitsFromEnv), or from a `score --out` results file
 * (verdicts from `--verdicts`, else `verdicts.json` beside it, else the grades its items carry).
 * The bundle is re-scored with the run's replay mode, and its judge replayed from the verdicts
 * (no LLM, no network); a rules run is simply judged by rules again. Exit 0 when every number is
 * identical, 1 when something differs (the report says what and why), 2 on usage errors and on a
 * server's answers that cannot be the entry's run (too large, too deep, too many pages, another
 * origin, another entry).
 */
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { Benchmark } from "../../lib/benchmark/load-benchmark";
import { asksNoModel, resolveJudgeSettings, type JudgeDefaults, type JudgeKind, type JudgeSettings } from "../../lib/judges/judge-settings";
import { askedNoModel, gradesOf, parseManifest, type RunManifest } from "../../lib/scoring/manifest";
import type { ScoreResults } from "../../lib/aggregate/score-results";
import { scoreBundle } from "../../lib/aggregate/score-bundle";
import { buildVerdictExport, exportGrade } from "../../lib/scoring/verdict-export";
import { mergeVerdictPages, parseVerdictExport, readVerdictFile, type ExportedGrade, type VerdictExport } from "../../lib/judges/verdict-file";
import { compareRuns, DIFFERENCE_KINDS, type DifferenceKind, type VerifyInput, type VerifyReport } from "../../lib/scoring/verify-report";
import { UNSAFE_TEXT } from "../../lib/formats/text-safety";
import { renderReportMarkdown } from "../../lib/validate/report";
import { openBundle } from "../../lib/validate/bundle-source";
import type { TreeManifest } from "../../lib/storage/tree";
import { folderSha256 } from "../../lib/submissions/bundle-storage";
import { agentboardVersion } from "./build-info";
import { usageError } from "./cli-errors";
import { databaseName } from "./db-url";
import { fetchJson, type JsonFetchLimits } from "./fetch-json";
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

/** The verdict pages read from the local database, at most (its owner's own data). */
const MAX_LOCAL_PAGES = 1_000;
const MAX_RESULTS_BYTES = 1024 ** 3;

/** What a server's answers may cost: each answer (fetch-json.ts), and the verdict pages followed. */
export interface ServerLimits extends JsonFetchLimits {
  /** Verdict pages (VERDICT_PAGE_SIZE items each) read, at most. */
  maxPages: number;
}

type ServerLimit = keyof Omit<ServerLimits, "names">;

/** Each limit's variable, default, range, and the unit the variable is written in (× scale = the value). */
const SERVER_SETTINGS: readonly { limit: ServerLimit; env: string; fallback: number; min: number; max: number; scale: number }[] = [
  { limit: "maxBytes", env: "AGENTBOARD_VERIFY_MAX_RESPONSE_MB", fallback: 32, min: 1, max: 1024, scale: 1024 ** 2 },
  { limit: "maxPages", env: "AGENTBOARD_VERIFY_MAX_PAGES", fallback: 50, min: 1, max: 100_000, scale: 1 },
  { limit: "maxDepth", env: "AGENTBOARD_VERIFY_MAX_JSON_DEPTH", fallback: 64, min: 2, max: 1_000, scale: 1 },
  { limit: "maxValues", env: "AGENTBOARD_VERIFY_MAX_JSON_VALUES", fallback: 1_000_000, min: 1, max: 100_000_000, scale: 1 },
  { limit: "maxRedirects", env: "AGENTBOARD_VERIFY_MAX_REDIRECTS", fallback: 5, min: 0, max: 20, scale: 1 },
  { limit: "timeoutMs", env: "AGENTBOARD_VERIFY_TIMEOUT_S", fallback: 30, min: 1, max: 3_600, scale: 1000 },
];

/** The server limits from the environment (defaults above); a bad value is a usage error naming its variable. */
export function serverLimitsFromEnv(env: Record<string, string | undefined>): ServerLimits {
  const out = { names: {} } as ServerLimits;
  for (const s of SERVER_SETTINGS) {
    const raw = env[s.env]?.trim();
    const n = raw ? (/^\d{1,12}$/.test(raw) ? Number(raw) : NaN) : s.fallback;
    if (!Number.isInteger(n) || n < s.min || n > s.max) throw usageError(`${s.env} must be a whole number from ${s.min} to ${s.max}, not ${JSON.stringify(raw)}`);
    out[s.limit] = n * s.scale;
    if (s.limit !== "maxPages") out.names[s.limit] = s.env;
  }
  return out;
}

/** The benchmark's panel, to run again a run its panel of deterministic judges graded. */
function panelOrFail(config: JudgeDefaults): JudgeSettings {
  const settings = config.panel ? resolveJudgeSettings({ flags: { judge: "panel" }, config }) : undefined;
  if (!settings || !asksNoModel(settings)) throw usageError("the run was graded by a panel of deterministic judges, but this benchmark's judge.panel is not one (or is gone): verify it with --verdicts <file>");
  return { ...settings, concurrency: 1 };
}

export async function verifyCommand(target: string, flags: VerifyFlags): Promise<number> {
  const limits = serverLimitsFromEnv(process.env);
  await bundleOrFail(flags.bundle);
  const recorded = await loadRecorded(target, flags, limits);
  const verdicts = flags.verdicts ? verdictFileOrFail(flags.verdicts) : recorded.verdicts;
  const benchmark = await loadBenchmarkOrFail(flags.benchmark);
  const mode = recorded.manifest.replay.mode;
  if (mode === "mcp" && !benchmark.spec.capabilities.some((c) => c.environment)) throw usageError("the run was replayed over MCP, but this benchmark declares no capabilities[].environment");
  // A judge that asked no model is run again (a panel of them: the benchmark's panel); any other is answered from the run's exported verdicts.
  const kind = recorded.manifest.judge.kind;
  const rules = askedNoModel(recorded.manifest.judge);
  const settings: JudgeSettings = !rules ? { kind: "verdicts", concurrency: 1 } : kind === "panel" ? panelOrFail(benchmark.spec.judge) : { kind: kind as JudgeKind, concurrency: 1 };
  const grader = graderOrFail(settings, { verdicts, keySalt: benchmark.content?.keySalt ?? "" });
  if (!flags.quiet) process.stderr.write(shown(`verifying ${recorded.source}: ${rules ? `${kind} judge, run again` : `judge ${verdicts.judge.id}, answered from ${flags.verdicts ?? "the run's exported verdicts"}`}, replay ${mode}\n`));
  const replay = await replayFor(mode, benchmark);
  let results: ScoreResults;
  try {
    const run = await scoreBundle(benchmark, flags.bundle, { grader, replay, agentboard: agentboardVersion(), ...(flags.quiet ? {} : { onProgress: createProgress("re-scoring") }) });
    if (run.kind !== "scored") return invalidBundle(run.report, recorded, flags);
    results = run.results;
  } finally {
    await replay.close();
  }
  // An entry received as a folder downloads as a ZIP of its files (/api/submissions/<id>/bundle):
  // its sha256 is the folder's, which the ZIP's files give when hashed as a folder is.
  let manifest = results.manifest;
  if (manifest.bundle.sha256 !== recorded.manifest.bundle.sha256 && (await zipAsFolderSha256(flags.bundle)) === recorded.manifest.bundle.sha256) {
    if (!flags.quiet) process.stderr.write("the ZIP's files are the folder the entry was received as (its sha256 is the folder's)\n");
    manifest = { ...manifest, bundle: { ...manifest.bundle, sha256: recorded.manifest.bundle.sha256 } };
  }
  const report = compareRuns({
    recorded: { manifest: recorded.manifest, items: recorded.items, grades: recorded.grades },
    verdicts: rules ? null : verdicts,
    rescored: { manifest, items: results.items, agentboard: agentboardVersion() },
  });
  process.stdout.write(flags.json ? `${JSON.stringify({ ...report, source: recorded.source }, null, 2)}\n` : shown(renderVerifyReport(report, recorded.source, recorded.manifest, benchmark)));
  return report.identical ? 0 : 1;
}

/** A ZIP bundle's files hashed as the folder they unzip to (bundle-storage.ts folderSha256); null for a folder or an unreadable ZIP. */
async function zipAsFolderSha256(bundle: string): Promise<string | null> {
  if (statSync(bundle, { throwIfNoEntry: false })?.isFile() !== true) return null;
  const opened = await openBundle(bundle);
  if (!opened.ok) return null;
  try {
    const files: TreeManifest = {};
    // Validation read this ZIP within its limits just before: its files are as bounded here.
    for (const f of opened.source.files) files[f.path] = createHash("sha256").update(await f.read()).digest("hex");
    return folderSha256(files);
  } finally {
    await opened.source.close();
  }
}

function invalidBundle(report: Parameters<typeof renderReportMarkdown>[0], recorded: Recorded, flags: VerifyFlags): number {
  process.stderr.write(renderReportMarkdown(report));
  const message = `the bundle is invalid (${report.summary.errors} error(s)); the run's bundle was ${recorded.manifest.bundle.sha256.slice(0, 12)}`;
  process.stdout.write(flags.json ? `${JSON.stringify({ schema: "agentboard.verify/1", identical: false, kinds: ["bundle"], run: [{ kind: "bundle", message }], source: recorded.source })}\n` : `DIFFERENT (bundle): ${message}\n`);
  return 1;
}

/** Where the recorded run comes from: an entry id, an entry's URL, or a results file. */
async function loadRecorded(target: string, flags: VerifyFlags, limits: ServerLimits): Promise<Recorded> {
  if (/^[1-9][0-9]{0,15}$/.test(target)) return fromDatabase(Number(target), flags.db);
  if (/^https?:\/\//i.test(target)) return fromServer(target, limits);
  if (statSync(target, { throwIfNoEntry: false })?.isFile()) return fromResultsFile(target, flags);
  throw usageError(`expected an entry id, an entry's URL (http(s)://…/submissions/<id>) or a results.json file, got "${target}"`);
}

function manifestOrFail(value: unknown, where: string): RunManifest {
  const r = parseManifest(value);
  if (!r.ok) throw usageError(`${where}: ${shown(r.error, 2_000)}`);
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
    for (let page = 1; page <= MAX_LOCAL_PAGES; page++) {
      const v = await getRunVerdicts(db, id, { page, includePrivate: true });
      if (!v) break;
      pages.push(v);
      if (page >= v.page.pages) break;
    }
    return recordedFrom(`entry ${id} (local database)`, manifest, mergedOrFail(pages));
  } finally {
    await closeDatabase(db);
  }
}

function recordedFrom(source: string, manifest: RunManifest, verdicts: VerdictExport): Recorded {
  return { source, manifest, items: verdicts.items, grades: verdicts.grades, verdicts };
}

/** The pages of one run as one export; pages of several runs are bad input, not an internal error. */
function mergedOrFail(pages: readonly VerdictExport[]): VerdictExport {
  try {
    return mergeVerdictPages(pages);
  } catch (err) {
    throw usageError(err instanceof Error ? err.message : String(err));
  }
}

/** `http(s)://host[/base]/submissions/<id>` (or `/api/submissions/<id>`): the API's base, its origin and the id. */
function entryUrl(raw: string): { api: string; origin: string; id: number } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw usageError(`not a URL: ${raw}`);
  }
  const m = /^(.*?)\/(?:api\/)?submissions\/([1-9][0-9]{0,15})(?:\/.*)?$/.exec(url.pathname);
  if (!m) throw usageError(`expected an entry's URL such as https://host/submissions/12, got ${raw}`);
  return { api: `${url.origin}${m[1]}/api/submissions/${m[2]}`, origin: url.origin, id: Number(m[2]) };
}

const short = (sha: string) => sha.slice(0, 12);

// Control and bidirectional-override characters (and C1 controls, which some terminals obey) a
// server could put in a uuid or a judge id to rewrite the terminal: shown as U+FFFD.
const UNPRINTABLE = new RegExp(`${UNSAFE_TEXT.source}|[\\u0080-\\u009f]`, "g");

/** Text from a server or a file as printed: refused characters replaced, cut at `max`. */
function shown(text: string, max = Number.POSITIVE_INFINITY): string {
  return (text.length > max ? `${text.slice(0, max)}…` : text).replace(UNPRINTABLE, "\uFFFD");
}

/**
 * The entry's manifest and its run's verdict pages, all from the entry URL's origin. Whatever the
 * server says, it must be this entry and this entry's run: the summary's id is the URL's, every
 * page holds the bundle the manifest names, says the same page count as the first (within
 * maxPages) and is the page asked for; anything else is bad input (exit 2).
 */
async function fromServer(raw: string, limits: ServerLimits): Promise<Recorded> {
  const { api, origin, id } = entryUrl(raw);
  const get = (url: string) => fetchJson(url, origin, limits);
  const entry = await get(api);
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) throw usageError(`${api} did not answer an entry (a JSON object)`);
  const said = (entry as { id?: unknown }).id;
  if (said !== undefined && said !== id) throw usageError(`${api} answered entry ${shown(JSON.stringify(said) ?? "", 40)}, not entry ${id}`);
  if (!(entry as { manifest?: unknown }).manifest) throw noManifest(raw);
  const manifest = manifestOrFail((entry as { manifest: unknown }).manifest, api);
  const pages: VerdictExport[] = [];
  for (let page = 1; ; page++) {
    const url = `${api}/verdicts?page=${page}`;
    const parsed = parseVerdictExport(await get(url));
    if (!parsed.ok) throw usageError(`${url}: ${shown(parsed.error, 2_000)}`);
    const v = parsed.verdicts;
    const first = pages[0] ?? v;
    if (v.bundle.sha256 !== manifest.bundle.sha256) throw usageError(`${url}: these verdicts are of a run of another entry (bundle sha256 ${short(v.bundle.sha256)}), not of entry ${id}'s run (bundle sha256 ${short(manifest.bundle.sha256)})`);
    if (v.judge.id !== first.judge.id) throw usageError(`${url}: this page is of another run of entry ${id} (judge ${shown(v.judge.id, 100)}; page 1: ${shown(first.judge.id, 100)}); was it rescored meanwhile? Try again`);
    if (v.page.number !== page) throw usageError(`${url}: answered page ${v.page.number} instead`);
    if (v.page.pages !== first.page.pages || v.page.items !== first.page.items) throw usageError(`${url}: says the run's verdicts fill ${v.page.pages} pages (${v.page.items} items); page 1 said ${first.page.pages} (${first.page.items} items)`);
    if (v.page.pages > limits.maxPages) throw usageError(`${url}: the run's verdicts fill ${v.page.pages} pages; at most ${limits.maxPages} are read (AGENTBOARD_VERIFY_MAX_PAGES=${limits.maxPages})`);
    if (v.items.length > v.page.size) throw usageError(`${url}: holds ${v.items.length} items, more than its page size of ${v.page.size}`);
    pages.push(v);
    if (page >= v.page.pages) break;
  }
  return recordedFrom(raw, manifest, mergedOrFail(pages));
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
