/**
 * The compat run that `npm run bench:score` measures beside VAKRA's (issue 28 part 4): the
 * stand-in judge over HTTP reads both sides' prompts back and applies the same rule, so
 * `./agentboard score --judge openai` against it gives the scores the rule gives in process
 * (the same work VAKRA's side is asked to do); and the bench's lines print both sides' CPU and
 * peak memory with the targets. Records are inline, in VAKRA's shape, in our own words.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadBenchmark } from "@/lib/benchmark/load-benchmark";
import { scoreBundle } from "@/lib/aggregate/score-bundle";
import { createRecordedReplay } from "@/lib/replay/recorded-replay";
import { passFail, type Grader } from "@/lib/judges/grader";
import { createGrader, resolveJudgeSettings } from "@/lib/judges/judge-settings";
import { startStandInJudge } from "@/scripts/compare-vakra/stand-in-judge";
import { compatRunLines } from "@/scripts/bench/compat-run";
import { runCli } from "../helpers/run-cli";

const tmp = mkdtempSync(path.join(tmpdir(), "agentboard-vakra-cost-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const CAPS = { c2: "capability_2_dashboard_apis", c4: "capability_4_multiturn" } as const;
const ANSWERS = ["Lagoon 7", 'the "north" pier', "", "12.5", "Otter and Finch", "tide\tchart"];
const RESPONSES: unknown[][] = [[], ["Lagoon 7 opened in 1998"], [{ "2": "otter", "1": "finch" }, 12.5], ["north " + "pier ".repeat(3000)], [null, true, "tide chart"]];

/** A compat: vakra benchmark and bundle: answers right, wrong, padded and empty; evidence none, short, long. */
function writeData(dir: string) {
  writeFileSync(path.join(dir, "benchmark.yaml"), `slug: cost\ntitle: Cost\nversion: "1"\ncompat: vakra\ncapabilities:\n  - { id: c2, label: C2, directory: ${CAPS.c2} }\n  - { id: c4, label: C4, directory: ${CAPS.c4} }\n`);
  let k = 0;
  for (const directory of Object.values(CAPS)) {
    const gts: unknown[] = [];
    const preds: unknown[] = [];
    for (let i = 0; i < 12; i++, k++) {
      const uuid = `${directory.slice(0, 12)}-${i}`;
      const answer = ANSWERS[k % ANSWERS.length]!;
      const responses = RESPONSES[k % RESPONSES.length]!;
      const turn = { turn_id: 0, query: `Which place, question ${i}?`, answer, sequence: { tool_call: responses.map((_, j) => ({ name: `look_${j}`, arguments: { j } })), tool_response: responses } };
      gts.push({ uuid, domain: "harbour", output: [turn] });
      const said = [answer, `It is ${answer}.`, "no idea", "Lagoon 7 opened"][k % 4];
      preds.push({ uuid, domain: "harbour", status: "success", error: "", output: [{ ...turn, answer: said, sequence: { ...turn.sequence, tool_response: k % 3 ? responses : [...responses, "extra"] } }] });
    }
    mkdirSync(path.join(dir, "groundtruth", directory), { recursive: true });
    mkdirSync(path.join(dir, "bundle", directory), { recursive: true });
    writeFileSync(path.join(dir, "groundtruth", directory, "harbour.json"), JSON.stringify(gts));
    writeFileSync(path.join(dir, "bundle", directory, "harbour.json"), JSON.stringify(preds));
  }
}

/** The rule applied in process to the texts our grader port receives (scripts/compare-vakra/agentboard-scores.mts). */
const ruleGrader: Grader = {
  id: "rule",
  readsPrompts: true,
  async grade(req) {
    if (req.kind === "correctness") return { ...passFail(req.answer.includes(req.reference), "rule", null), promptHash: null };
    if (req.kind !== "groundedness") throw new Error(`unexpected ${req.kind}`);
    const doc = `QUERY: ${req.question} ${req.evidence.join(" ")}`;
    return { ...passFail(req.answer.split(/\s+/).filter(Boolean).every((t) => doc.includes(t)), "rule", null), promptHash: null };
  },
};

describe("the compat run at VAKRA's cost", () => {
  it("the CLI's openai judge against the stand-in judge scores every dialogue as the rule does in process", async () => {
    writeData(tmp);
    const benchmark = await loadBenchmark(tmp);
    const inProcess = await scoreBundle(benchmark, path.join(tmp, "bundle"), { grader: ruleGrader, replay: createRecordedReplay() });
    if (inProcess.kind !== "scored") throw new Error("fixture bundle not scored");
    const expected = Object.fromEntries(inProcess.results.items.map((it) => [`${it.capability}|${it.uuid}`, it.score]));
    // Both verdicts occur, or the comparison proves little.
    expect(new Set(Object.values(expected))).toEqual(new Set([0, 1]));

    const judge = await startStandInJudge();
    try {
      const out = path.join(tmp, "results.json");
      const run = await runCli(["score", path.join(tmp, "bundle"), "--benchmark", tmp, "--judge", "openai", "--judge-base-url", judge.baseUrl, "--judge-model", "stand-in", "--replay", "recorded", "--quiet", "--out", out]);
      expect(run.stderr).not.toMatch(/could not be judged/);
      expect(run.code).toBe(0);
      const items = (JSON.parse(readFileSync(out, "utf8")) as { items: { capability: string; uuid: string; score: number }[] }).items;
      expect(Object.fromEntries(items.map((it) => [`${it.capability}|${it.uuid}`, it.score]))).toEqual(expected);
      expect(judge.counts.agentboard).toBeGreaterThan(0);
      expect(judge.counts.vakra).toBe(0);
    } finally {
      await judge.close();
    }
  });

  it("answers VAKRA's prompt shape in the forms VAKRA's parsers read", async () => {
    const judge = await startStandInJudge();
    try {
      const ask = async (prompt: string) => {
        const r = await fetch(`${judge.baseUrl}/v1/chat/completions`, { method: "POST", body: JSON.stringify({ model: "stand-in", messages: [{ role: "user", content: prompt }] }) });
        return ((await r.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
      };
      // Our own words around VAKRA's tags (evaluator/prompt.py's placeholders sit between them).
      const correctness = (reference: string, prediction: string) => `Grade this.\n<answer>\n${reference}\n</answer>\nAnd this:\n<prediction>\n${prediction}\n</prediction>\nReply.`;
      const groundedness = (doc: string, response: string) => `Check it.\n<doc> \n${doc}\n</doc>\n<response>\n${response}\n</response>\nReply.`;
      expect(JSON.parse(await ask(correctness("lagoon 7", "it is lagoon 7.")))).toMatchObject({ score: 1 });
      expect(JSON.parse(await ask(correctness("lagoon 7", "lagoon 8")))).toMatchObject({ score: 0 });
      expect((await ask(groundedness("QUERY: where? lagoon 7 opened", "lagoon 7"))).split("\n")[0]).toBe("yes");
      expect((await ask(groundedness("QUERY: where? lagoon 7 opened", "lagoon 9"))).split("\n")[0]).toBe("no");
      expect(judge.counts).toEqual({ agentboard: 0, vakra: 4 });
    } finally {
      await judge.close();
    }
  });

  it("the judge asks over node:http, not fetch (fetch cost 4 s of CPU and 90 MB on the 5,187-dialogue run)", async () => {
    const judge = await startStandInJudge();
    const realFetch = globalThis.fetch;
    let fetched = 0;
    globalThis.fetch = (...args: Parameters<typeof fetch>) => {
      fetched++;
      return realFetch(...args);
    };
    try {
      const grader = createGrader(resolveJudgeSettings({ flags: { judge: "openai", judgeBaseUrl: judge.baseUrl, judgeModel: "stand-in" } }));
      const grade = await grader.grade({ kind: "correctness", question: "Which pier?", answer: "the north pier", answerValue: "the north pier", reference: "north pier", referenceValue: "north pier" });
      expect(grade.outcome).toBe("pass");
      expect(judge.counts.agentboard).toBe(1);
      expect(fetched).toBe(0);
    } finally {
      globalThis.fetch = realFetch;
      await judge.close();
    }
  });

  it("prints both sides' CPU and peak memory beside the targets", () => {
    const cost = (cpuS: number, rssMB: number) => ({ cpuS, rssMB, code: 0 });
    const lines = compatRunLines({ dialogues: 5187, agentboard: [cost(9.1, 420), cost(10.2, 450)], vakra: [cost(2.1, 55), cost(2.3, 57)], vakraInProcess: cost(0.8, 56), requests: { agentboard: 5545, vakra: 5956 }, differ: 0 }).join("\n");
    expect(lines).toContain("Agentboard ./agentboard score --judge openai (compat: vakra): 9.1–10.2 s CPU, 420–450 MB peak; 5545 judge requests");
    expect(lines).toMatch(/VAKRA DialogueScorer .*: +2\.1–2\.3 s CPU, 55–57 MB peak; 5956 judge requests/);
    expect(lines).toContain("targets: CPU ≤ VAKRA's (worst 10.2 s against best 2.1 s): NOT met; peak memory ≤ 150 MB (worst 450 MB): NOT met");
    expect(lines).toContain("every dialogue the same on both sides");
    const met = compatRunLines({ dialogues: 5187, agentboard: [cost(1.9, 140)], vakra: [cost(2.1, 55)], vakraInProcess: cost(0.8, 56), requests: { agentboard: 1, vakra: 1 }, differ: 2 }).join("\n");
    expect(met).toContain("CPU ≤ VAKRA's (worst 1.9 s against best 2.1 s): met; peak memory ≤ 150 MB (worst 140 MB): met");
    expect(met).toContain("2 dialogue(s) DIFFER");
  });
});
