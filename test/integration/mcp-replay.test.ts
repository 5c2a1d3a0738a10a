/** The MCP replay against the real demo environment over stdio. */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dialogueCapability, loadBenchmark, type Benchmark } from "@/lib/benchmark/load-benchmark";
import { benchmarkSpecSchema } from "@/lib/benchmark/spec";
import type { GroundTruthDialogue, PredictedDialogue, ToolCall } from "@/lib/formats/dialogue";
import { createMcpReplay, type McpReplayPort } from "@/lib/replay/mcp-replay";
import { ReplayError } from "@/lib/replay/replay-port";
import { canonicalJson } from "@/lib/formats/canonical-json";

const repo = path.resolve(import.meta.dirname, "../..");
const server = path.join(repo, "benchmarks/demo/environment/server.ts");

const call = (name: string, args: Record<string, unknown> = {}): ToolCall => ({ name, arguments: args });
const asPrediction = (gt: GroundTruthDialogue, calls: ToolCall[]): PredictedDialogue => ({
  uuid: gt.uuid,
  domain: gt.domain,
  status: "success",
  error: "",
  durationS: 1,
  turns: [{ turnId: gt.turns[gt.turns.length - 1]!.turnId, query: "q", answer: "a", calls }],
});

describe("replay against the demo benchmark", () => {
  let demo: Benchmark;
  let replay: McpReplayPort;
  beforeAll(async () => {
    demo = await loadBenchmark(path.join(repo, "benchmarks/demo"));
    replay = createMcpReplay(demo);
  });
  afterAll(() => replay.close());

  it("reproduces every stored ground-truth response of a capability (no drift)", async () => {
    for (const capId of ["api_chaining", "multihop"]) {
      const cap = dialogueCapability(demo.capabilities.find((c) => c.spec.id === capId)!);
      const gts = [...cap.byUuid.values()].slice(0, 12);
      for (const gt of gts) {
        const replayed = await replay.replayGroundTruth(cap.spec, gt.uuid);
        expect(canonicalJson(replayed), `${capId}/${gt.uuid}`).toBe(canonicalJson(replay.storedGroundTruth(cap.spec, gt.turns)));
      }
    }
  });

  it("gives a dialogue byte-identical responses whatever ran before it", async () => {
    const cap = dialogueCapability(demo.capabilities.find((c) => c.spec.id === "api_chaining")!);
    const [x, y] = [...cap.byUuid.values()];
    const predict = (gt: GroundTruthDialogue) => replay.replay({ capability: cap.spec, groundTruth: gt, prediction: asPrediction(gt, gt.turns[0]!.calls.slice(1)) });
    const first = await predict(x!);
    // Another dialogue, plus extra calls that create handles, must not change what x sees.
    await predict(y!);
    await replay.replay({ capability: cap.spec, groundTruth: y!, prediction: asPrediction(y!, [...y!.turns[0]!.calls.slice(1), ...y!.turns[0]!.calls.slice(1)]) });
    const again = await predict(x!);
    expect(JSON.stringify(again.prediction)).toBe(JSON.stringify(first.prediction));
    expect(JSON.stringify(first.prediction[0]!.responses)).toBe(JSON.stringify(first.groundTruth[0]!.responses));
    // Handles are real: the first response is a peek with one.
    expect(first.prediction[0]!.responses[0]).toMatchObject({ handle: expect.stringMatching(/^[a-z_]+_[0-9a-f]{8}$/) });
  });
});

describe("replay faults, with the environment's test tools", () => {
  const spec = benchmarkSpecSchema.parse({
    slug: "faults",
    title: "Faults",
    version: "1",
    capabilities: [
      {
        id: "tools",
        label: "Tools",
        directory: "capability_2_dashboard_apis",
        environment: {
          server: { command: process.execPath, args: ["--import", "tsx", server, "--domain", "{domain}", "--capability", "{capability}"], env: { DEMO_TEST_TOOLS: "1" }, cwd: repo },
          resetTool: "reset_session",
          callTimeoutMs: 2_000,
        },
      },
    ],
  });
  const gt: GroundTruthDialogue = { uuid: "g1", domain: "harbor", instructions: "", turns: [{ turnId: 0, query: "How many ships?", answer: [[1]], calls: [call("get_ships_count")], responses: [] }] };
  const bench: Benchmark = { root: repo, spec, capabilities: [{ kind: "dialogues", spec: spec.capabilities[0]!, domains: new Map([["harbor", [gt]]]), byUuid: new Map([["g1", gt]]) }], policyTable: new Map(), warnings: [] };
  let replay: McpReplayPort;
  beforeAll(() => {
    replay = createMcpReplay(bench);
  });
  afterAll(() => replay.close());
  const run = (calls: ToolCall[]) => replay.replay({ capability: spec.capabilities[0]!, groundTruth: gt, prediction: asPrediction(gt, calls) });

  it("coerces arguments to the tool's input schema", async () => {
    const out = await run([call("debug_echo", { value: "42", items: "solo", label: 7 })]);
    expect(out.prediction[0]!.responses[0]).toEqual({ value: 42, items: ["solo"], label: "7" });
  });

  it("records isError results and unknown tools as error responses of that call", async () => {
    const out = await run([call("debug_fail", { message: "the archive is closed" }), call("no_such_tool"), call("get_ships_count")]);
    const [failed, unknown, ok] = out.prediction[0]!.responses;
    expect(failed).toEqual({ error: "the archive is closed" });
    expect(unknown).toEqual({ error: "unknown tool no_such_tool" });
    expect(ok).toEqual({ count: expect.any(Number) });
  });

  it("times out a slow call as its error response and goes on with the dialogue", async () => {
    // Had it waited out the 20 s sleep, the call would have answered instead of timing out.
    const out = await run([call("debug_sleep", { ms: 20_000 }), call("get_ships_count")]);
    const [slow, next] = out.prediction[0]!.responses;
    expect((slow as { error: string }).error).toMatch(/timed out/i);
    expect(next).toEqual({ count: expect.any(Number) });
  });

  it("fails the dialogue when the server exits mid-call, then continues with a new server", async () => {
    const before = replay.stats().sessionsStarted;
    const err = await run([call("get_ships_count"), call("debug_exit", { code: 3 })]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ReplayError);
    expect((err as Error).message).toMatch(/tool server for capability_2_dashboard_apis\/harbor closed the connection during debug_exit/);
    const out = await run([call("get_ships_count")]);
    expect(out.prediction[0]!.responses[0]).toEqual({ count: expect.any(Number) });
    expect(replay.stats().sessionsStarted).toBe(before + 1);
  });
});
