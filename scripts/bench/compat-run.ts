/**
 * The compat run at VAKRA's cost (issue 28 part 4): the same varied VAKRA-shaped data
 * (scripts/compare-vakra/generate.py, 5,187 dialogues) scored by `./agentboard score` with
 * `compat: vakra` and by VAKRA's own DialogueScorer, both judged by one stand-in judge over
 * HTTP (stand-in-judge.ts, served from this process, so neither side pays for judging, and
 * both pay for a request each). Whole processes: CPU is user + sys seconds and memory the peak
 * RSS, both from /usr/bin/time, which hold on a busy machine where wall time does not.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { startStandInJudge } from "../compare-vakra/stand-in-judge";

const TIME = "/usr/bin/time";
export const COMPAT_DIALOGUES = 5187;
/** The issue's targets: CPU at most VAKRA's, peak memory at most 150 MB. */
export const COMPAT_MAX_RSS_MB = 150;

export interface ProcessCost {
  cpuS: number;
  rssMB: number;
  code: number | null;
}

/** One process under /usr/bin/time, spawned without blocking: the stand-in judge answers from this event loop. */
function costOf(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<ProcessCost> {
  return new Promise((resolve, reject) => {
    const child = spawn(TIME, ["-f", "@@cost %U %S %M", command, ...args], { env, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (c: Buffer) => (err = (err + c.toString()).slice(-64 * 1024)));
    child.on("error", reject);
    child.on("close", (code) => {
      const m = /@@cost ([\d.]+) ([\d.]+) (\d+)/.exec(err);
      if (!m) return reject(new Error(`${command} ${args.join(" ")}: no figures from ${TIME} (exit ${code}): ${err.slice(-2000)}`));
      // %M is in KiB; MB as the issue quotes them.
      resolve({ cpuS: Number(m[1]) + Number(m[2]), rssMB: (Number(m[3]) * 1024) / 1e6, code });
    });
  });
}

/** Why the compat run cannot be measured here, or null. */
export function compatRunMissing(vakraCheckout: string): string | null {
  if (!existsSync(TIME)) return `${TIME} is not installed (apt-get install time): it gives the CPU and peak memory`;
  if (!existsSync(path.join(vakraCheckout, "evaluator", "scorer.py"))) return `no VAKRA evaluator at ${vakraCheckout}/evaluator`;
  const py = spawnSync("python3", ["-c", "import pydantic"], { stdio: "ignore" });
  if (py.error || py.status !== 0) return `python3 with pydantic is not available, which VAKRA's evaluator needs`;
  return null;
}

export interface CompatRunFigures {
  dialogues: number;
  agentboard: ProcessCost[];
  vakra: ProcessCost[];
  /** VAKRA with vakra_scores.py's judge in its own process (no HTTP): the cheapest VAKRA run, for reference. */
  vakraInProcess: ProcessCost;
  requests: { agentboard: number; vakra: number };
  /** Dialogues whose score differs between the two sides (the same work was done when 0). */
  differ: number;
}

/**
 * Generates the data once (fixed seed) under `dir`, then measures `runs` runs of each side.
 * `agentboard` is the launcher at the repository's root.
 */
export async function measureCompatRun(opts: { dir: string; repo: string; agentboard: string; vakra: string; runs: number }): Promise<CompatRunFigures> {
  const here = path.join(opts.repo, "scripts/compare-vakra");
  const data = path.join(opts.dir, "data");
  if (!existsSync(path.join(data, "bundle"))) {
    const r = spawnSync("python3", [path.join(here, "generate.py"), data, "1", String(COMPAT_DIALOGUES)], { stdio: "inherit" });
    if (r.status !== 0) throw new Error("generate.py failed");
  }
  const judge = await startStandInJudge();
  try {
    const score = (extra: string[] = []) => ["score", path.join(data, "bundle"), "--benchmark", path.join(data, "bench"), "--judge", "openai", "--judge-base-url", judge.baseUrl, "--judge-model", "stand-in", "--replay", "recorded", "--quiet", ...extra];
    const vakraArgs = (out: string, url?: string) => [path.join(here, "vakra_scores.py"), ...(url ? ["--judge-url", url] : []), opts.vakra, data, out];
    const vakraEnv = { ...process.env, API_KEY: "stand-in" };
    const ok = (c: ProcessCost, what: string) => {
      // score exits 0, or 3 when some item could not be judged (then the run is not comparable).
      if (c.code !== 0) throw new Error(`${what} exited ${c.code}`);
      return c;
    };

    // Same scores first (not timed: --out adds the results file), and the requests each side sends.
    const ours = path.join(opts.dir, "agentboard.json");
    const theirs = path.join(opts.dir, "vakra.json");
    judge.reset();
    ok(await costOf(opts.agentboard, score(["--out", ours])), "agentboard score");
    ok(await costOf("python3", vakraArgs(theirs, judge.baseUrl), vakraEnv), "vakra_scores.py");
    const requests = { ...judge.counts };
    const differ = differing(theirs, ours);

    const agentboard: ProcessCost[] = [];
    const vakra: ProcessCost[] = [];
    // Alternated, so both sides see the same load over the runs.
    for (let i = 0; i < opts.runs; i++) {
      agentboard.push(ok(await costOf(opts.agentboard, score()), "agentboard score"));
      vakra.push(ok(await costOf("python3", vakraArgs(theirs, judge.baseUrl), vakraEnv), "vakra_scores.py"));
    }
    const vakraInProcess = ok(await costOf("python3", vakraArgs(path.join(opts.dir, "vakra-in-process.json")), vakraEnv), "vakra_scores.py (in process)");
    return { dialogues: Object.keys(JSON.parse(readFileSync(theirs, "utf8")) as object).length, agentboard, vakra, vakraInProcess, requests, differ };
  } finally {
    await judge.close();
  }
}

/** Dialogues scored differently: VAKRA's "<capability folder>|<uuid>" scores against our results.json items. */
function differing(vakraFile: string, resultsFile: string): number {
  const vakra = JSON.parse(readFileSync(vakraFile, "utf8")) as Record<string, number>;
  const results = JSON.parse(readFileSync(resultsFile, "utf8")) as { items: { capability: string; uuid: string; score: number }[] };
  // generate.py's capability ids are c2 and c4 for its two folders.
  const folder: Record<string, string> = { c2: "capability_2_dashboard_apis", c4: "capability_4_multiturn" };
  const ours = new Map(results.items.map((it) => [`${folder[it.capability]}|${it.uuid}`, it.score]));
  return Object.entries(vakra).filter(([k, v]) => Math.abs(v - (ours.get(k) ?? -1)) > 1e-9).length;
}

const range = (xs: number[], digits: number) => {
  const lo = Math.min(...xs).toFixed(digits);
  const hi = Math.max(...xs).toFixed(digits);
  return lo === hi ? lo : `${lo}–${hi}`;
};

/** The lines the bench prints: both sides' CPU and peak memory, the targets and how the run was made fair. */
export function compatRunLines(f: CompatRunFigures): string[] {
  const cpu = (cs: ProcessCost[]) => `${range(cs.map((c) => c.cpuS), 1)} s CPU`;
  const rss = (cs: ProcessCost[]) => `${range(cs.map((c) => c.rssMB), 0)} MB peak`;
  const ourCpu = Math.max(...f.agentboard.map((c) => c.cpuS));
  const theirCpu = Math.min(...f.vakra.map((c) => c.cpuS));
  const ourRss = Math.max(...f.agentboard.map((c) => c.rssMB));
  return [
    `compat run, ${f.dialogues} varied dialogues (generate.py seed 1), one stand-in judge over HTTP for both sides, ${f.agentboard.length} run(s) each (user+sys CPU and peak RSS of the whole process, /usr/bin/time):`,
    `  Agentboard ./agentboard score --judge openai (compat: vakra): ${cpu(f.agentboard)}, ${rss(f.agentboard)}; ${f.requests.agentboard} judge requests`,
    `  VAKRA DialogueScorer (vakra_scores.py --judge-url):          ${cpu(f.vakra)}, ${rss(f.vakra)}; ${f.requests.vakra} judge requests`,
    `  VAKRA with the judge in its own process (no HTTP, reference): ${f.vakraInProcess.cpuS.toFixed(1)} s CPU, ${f.vakraInProcess.rssMB.toFixed(0)} MB peak`,
    `  scores: ${f.differ === 0 ? "every dialogue the same on both sides" : `${f.differ} dialogue(s) DIFFER (run scripts/compare-vakra/run.sh)`}`,
    "  fairness: the judge's own work runs in this bench's process, counted on neither side; each side sends its own prompts (Agentboard caches repeated ones);",
    "  VAKRA's langchain client is replaced by a lighter http.client one (langchain is not installed here), so VAKRA's side is measured below its real cost.",
    `  targets: CPU ≤ VAKRA's (worst ${ourCpu.toFixed(1)} s against best ${theirCpu.toFixed(1)} s): ${ourCpu <= theirCpu ? "met" : "NOT met"}; peak memory ≤ ${COMPAT_MAX_RSS_MB} MB (worst ${ourRss.toFixed(0)} MB): ${ourRss <= COMPAT_MAX_RSS_MB ? "met" : "NOT met"}`,
  ];
}
