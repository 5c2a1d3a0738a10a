/**
 * The replay logic over a scripted in-memory tool server standing in for the transport
 * (the real stdio server is exercised in test/integration).
 */
import { describe, expect, it } from "vitest";
import { dialogueCapability, type Benchmark } from "@/lib/benchmark/load-benchmark";
import { benchmarkSpecSchema } from "@/lib/benchmark/spec";
import type { GroundTruthDialogue, PredictedDialogue, ToolCall } from "@/lib/formats/dialogue";
import { createMcpReplay, createMemoryGroundTruthStore } from "@/lib/replay/mcp-replay";
import { SessionClosedError, type ConnectSession, type ToolSession } from "@/lib/replay/mcp-session";
import { ReplayError } from "@/lib/replay/replay-port";
import { SessionPool } from "@/lib/replay/session-pool";

/** A stateful fake server: `next` returns an increasing counter, so shared state would show. */
function fakeServer(log: string[], opts: { dieOn?: string } = {}): ConnectSession {
  let servers = 0;
  return async (_spec, vars) => {
    const id = ++servers;
    let counter = 0;
    let alive = true;
    const session: ToolSession = {
      get alive() {
        return alive;
      },
      async tools() {
        const schema = { type: "object", properties: { n: { type: "integer" }, tool_universe_id: { type: "string" } } };
        return new Map(["reset", "get_data", "next", "echo", "crash", "query_docs"].map((name) => [name, { name, inputSchema: schema }]));
      },
      async call(name, args) {
        if (!alive) throw new SessionClosedError("gone");
        log.push(`${vars.domain}#${id} ${name} ${JSON.stringify(args)}`);
        if (name === opts.dieOn) {
          alive = false;
          throw new SessionClosedError(`the tool server for ${vars.capability}/${vars.domain} closed the connection during ${name}`);
        }
        if (name === "reset") counter = 0;
        if (name === "next") return ++counter;
        if (name === "echo") return args;
        if (name === "query_docs") return { results: [{ id: "a", text: "chunk A", score: 1.5 }] };
        return { ok: name };
      },
      async close() {
        alive = false;
      },
    };
    return session;
  };
}

const call = (name: string, args: Record<string, unknown> = {}): ToolCall => ({ name, arguments: args });

function makeBenchmark(env: Record<string, unknown>): Benchmark {
  const spec = benchmarkSpecSchema.parse({
    slug: "t",
    title: "T",
    version: "1",
    capabilities: [{ id: "c1", label: "C1", directory: "capability_1_x", environment: { server: { command: "fake" }, ...env } }],
  });
  const gts: GroundTruthDialogue[] = ["u1", "u2"].map((uuid) => ({
    uuid,
    domain: "d",
    instructions: "",
    turns: [{ turnId: 0, query: "q", answer: "a", calls: [call("initialize_active_data"), call("next"), call("next")], responses: [] }],
  }));
  return { root: "/bench", spec, capabilities: [{ kind: "dialogues", spec: spec.capabilities[0]!, domains: new Map([["d", gts]]), byUuid: new Map(gts.map((g) => [g.uuid, g])) }], policyTable: new Map(), warnings: [] };
}

const prediction = (uuid: string, calls: ToolCall[]): PredictedDialogue => ({ uuid, domain: "d", status: "success", error: "", durationS: 1, turns: [{ turnId: 0, query: "q", answer: "a", calls }] });

describe("createMcpReplay", () => {
  const env = { resetTool: "reset", prelude: [{ name: "get_data", arguments: { tool_universe_id: "{uuid}" } }], dropLeadingGroundTruthCalls: ["initialize_active_data"] };

  it("gives every dialogue a fresh state, separate for prediction and ground truth", async () => {
    const log: string[] = [];
    const b = makeBenchmark(env);
    const replay = createMcpReplay(b, { connect: fakeServer(log), concurrency: 1 });
    const cap = b.capabilities[0]!.spec;
    const gt = dialogueCapability(b.capabilities[0]!).byUuid.get("u1")!;
    const first = await replay.replay({ capability: cap, groundTruth: gt, prediction: prediction("u1", [call("next"), call("next"), call("next")]) });
    const second = await replay.replay({ capability: cap, groundTruth: dialogueCapability(b.capabilities[0]!).byUuid.get("u2")!, prediction: prediction("u2", [call("next"), call("next")]) });
    expect(first.prediction).toEqual([{ turnId: 0, responses: [1, 2, 3] }]);
    expect(first.groundTruth).toEqual([{ turnId: 0, responses: [1, 2] }]); // initialize_active_data dropped
    expect(second.prediction).toEqual([{ turnId: 0, responses: [1, 2] }]);
    // Every dialogue run starts with the reset, then the prelude with its own uuid.
    expect(log.filter((l) => l.includes("get_data"))).toEqual(['d#1 get_data {"tool_universe_id":"u1"}', 'd#1 get_data {"tool_universe_id":"u1"}', 'd#1 get_data {"tool_universe_id":"u2"}', 'd#1 get_data {"tool_universe_id":"u2"}']);
    expect(log.filter((l) => l.includes(" reset "))).toHaveLength(4);
    expect(replay.stats()).toMatchObject({ calls: 9, sessionsStarted: 1 });
    await replay.close();
  });

  it("does not repeat a prelude the prediction already made, and coerces arguments", async () => {
    const log: string[] = [];
    const b = makeBenchmark(env);
    const replay = createMcpReplay(b, { connect: fakeServer(log) });
    const out = await replay.replay({
      capability: b.capabilities[0]!.spec,
      groundTruth: dialogueCapability(b.capabilities[0]!).byUuid.get("u1")!,
      prediction: prediction("u1", [call("get_data", { tool_universe_id: "u1" }), call("echo", { n: "7" }), call("missing_tool")]),
    });
    expect(out.prediction[0]!.responses).toEqual([{ n: 7 }, { error: "unknown tool missing_tool" }]);
    expect(log.filter((l) => l.includes("get_data")).length).toBe(2); // once for prediction, once for ground truth
    await replay.close();
  });

  it("starts a new session per dialogue when the server has no reset tool", async () => {
    const log: string[] = [];
    const b = makeBenchmark({});
    const replay = createMcpReplay(b, { connect: fakeServer(log), concurrency: 2 });
    const cap = b.capabilities[0]!.spec;
    for (const u of ["u1", "u2"]) {
      const r = await replay.replay({ capability: cap, groundTruth: dialogueCapability(b.capabilities[0]!).byUuid.get(u)!, prediction: prediction(u, [call("next")]) });
      expect(r.prediction[0]!.responses).toEqual([1]);
    }
    expect(replay.stats().sessionsStarted).toBe(4);
    await replay.close();
  });

  it("reuses stored ground-truth responses instead of replaying them", async () => {
    const log: string[] = [];
    const b = makeBenchmark(env);
    const store = createMemoryGroundTruthStore();
    store.set("c1", "u1", [{ turnId: 0, responses: ["stored"] }]);
    const replay = createMcpReplay(b, { connect: fakeServer(log), groundTruth: store });
    const out = await replay.replay({ capability: b.capabilities[0]!.spec, groundTruth: dialogueCapability(b.capabilities[0]!).byUuid.get("u1")!, prediction: prediction("u1", []) });
    expect(out.groundTruth).toEqual([{ turnId: 0, responses: ["stored"] }]);
    expect(log.some((l) => l.includes("next"))).toBe(false);
    await replay.close();
  });

  it("says where the ground-truth responses came from, for the run's manifest", async () => {
    const b = makeBenchmark(env);
    const cap = b.capabilities[0]!.spec;
    // Nothing stored: replayed here (a second ask is answered from memory, still replayed here).
    const fresh = createMcpReplay(b, { connect: fakeServer([]) });
    expect(fresh.groundTruthSource?.()).toBe("environment");
    // A replay that fails brought no ground truth: still none replayed.
    await expect(fresh.replayGroundTruth(cap, "no-such-uuid")).rejects.toThrow(ReplayError);
    expect(fresh.groundTruthSource?.()).toBe("environment");
    await fresh.replayGroundTruth(cap, "u1");
    await fresh.replayGroundTruth(cap, "u1");
    expect(fresh.groundTruthSource?.()).toBe("replayed");
    await fresh.close();
    // A stored replay file: stored, then stored and replayed once an item is missing from it.
    const store = createMemoryGroundTruthStore();
    store.set("c1", "u1", [{ turnId: 0, responses: ["stored"] }]);
    const stored = createMcpReplay(b, { connect: fakeServer([]), groundTruth: store });
    await stored.replayGroundTruth(cap, "u1");
    expect(stored.groundTruthSource?.()).toBe("stored");
    await stored.replayGroundTruth(cap, "u2");
    expect(stored.groundTruthSource?.()).toBe("stored+replayed");
    await stored.close();
  });

  it("fails a dialogue whose server dies with a clear message, then goes on with a new server", async () => {
    const log: string[] = [];
    const b = makeBenchmark(env);
    const replay = createMcpReplay(b, { connect: fakeServer(log, { dieOn: "crash" }), concurrency: 1 });
    const cap = b.capabilities[0]!.spec;
    const gt = dialogueCapability(b.capabilities[0]!).byUuid.get("u1")!;
    const err = await replay.replay({ capability: cap, groundTruth: gt, prediction: prediction("u1", [call("next"), call("crash"), call("next")]) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ReplayError);
    expect((err as Error).message).toContain("closed the connection during crash");
    const ok = await replay.replay({ capability: cap, groundTruth: gt, prediction: prediction("u1", [call("next")]) });
    expect(ok.prediction[0]!.responses).toEqual([1]);
    expect(replay.stats().sessionsStarted).toBe(2);
    await replay.close();
  });
});

describe("SessionPool", () => {
  it("never holds more sessions than its size and evicts idle ones of other keys", async () => {
    let open = 0;
    let maxOpen = 0;
    const mk = async (): Promise<ToolSession> => {
      open++;
      maxOpen = Math.max(maxOpen, open);
      let alive = true;
      return {
        get alive() {
          return alive;
        },
        tools: async () => new Map(),
        call: async () => null,
        close: async () => {
          if (alive) open--;
          alive = false;
        },
      };
    };
    const pool = new SessionPool(2, mk);
    const a = await pool.acquire("a");
    const b = await pool.acquire("b");
    const waiting = pool.acquire("c");
    let got = false;
    void waiting.then(() => (got = true));
    await new Promise((r) => setTimeout(r, 10));
    expect(got).toBe(false); // both busy: the third caller waits
    pool.release("a", a, true); // idle "a" is evicted to make room for "c"
    const c = await waiting;
    expect(maxOpen).toBe(2);
    pool.release("b", b, true);
    expect(await pool.acquire("b")).toBe(b); // idle session of the same key is reused
    pool.release("c", c, false);
    await pool.close();
    expect(pool.started).toBe(3);
  });
});

describe("SessionPool per-key cap", () => {
  it("makes a second caller of a busy key wait instead of starting a third server", async () => {
    let started = 0;
    const mk = async (): Promise<ToolSession> => {
      started++;
      return { alive: true, tools: async () => new Map(), call: async () => null, close: async () => {} };
    };
    const pool = new SessionPool(8, mk, 2);
    const a1 = await pool.acquire("a");
    await pool.acquire("a");
    let third: ToolSession | undefined;
    const pending = pool.acquire("a").then((s) => (third = s));
    const other = await pool.acquire("b"); // another key still gets a server
    await new Promise((r) => setTimeout(r, 10));
    expect(third).toBeUndefined();
    expect(started).toBe(3);
    pool.release("a", a1, true);
    await pending;
    expect(third).toBe(a1);
    expect(started).toBe(3);
    pool.release("b", other, true);
    await pool.close();
  });
});
