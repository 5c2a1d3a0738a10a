/**
 * Replays dialogues against the benchmark's tool servers over MCP. Each dialogue runs in a
 * fresh server state (the server's reset tool, or a new session), and the prediction and
 * the ground truth never share one, so identical calls give identical responses whatever
 * ran before. Ground-truth responses depend only on the benchmark version: they come from a
 * store when one is given (see `replay-gt`), and are replayed once otherwise.
 */
import { findDialogue, type Benchmark } from "../benchmark/load-benchmark";
import { leadingCallsDropped, type CapabilitySpec, type EnvironmentSpec } from "../benchmark/spec";
import { matchesAny } from "../benchmark/tool-glob";
import type { ToolCall, Turn } from "../formats/dialogue";
import { coerceArguments } from "./coerce-arguments";
import { connectMcpSession, SessionClosedError, substitute, type ConnectSession, type ToolSession } from "./mcp-session";
import { ReplayError, type ReplayedTurn, type ReplayOutcome, type ReplayPort, type ReplayRequest } from "./replay-port";
import { SessionPool } from "./session-pool";
import { retrieverChunks, toolError } from "./tool-result";

/** Ground-truth responses per capability and uuid. */
export interface GroundTruthStore {
  get(capability: string, uuid: string): ReplayedTurn[] | undefined;
  set(capability: string, uuid: string, turns: ReplayedTurn[]): void;
}

export function createMemoryGroundTruthStore(): GroundTruthStore & { entries(): [string, string, ReplayedTurn[]][] } {
  const map = new Map<string, ReplayedTurn[]>();
  return {
    get: (c, u) => map.get(`${c}\0${u}`),
    set: (c, u, t) => void map.set(`${c}\0${u}`, t),
    entries: () => [...map].map(([k, v]) => [...(k.split("\0") as [string, string]), v]),
  };
}

export interface McpReplayOptions {
  /** Server sessions open at once (processes, for stdio servers); default 16. */
  concurrency?: number;
  /** Sessions of one (capability, domain) at once; default 1 (a call takes well under a millisecond, a server start ~0.4 s). */
  perKey?: number;
  connect?: ConnectSession;
  groundTruth?: GroundTruthStore;
}

export interface McpReplayPort extends ReplayPort {
  /** Replays one ground-truth dialogue (used by `replay-gt`). */
  replayGroundTruth(capability: CapabilitySpec, uuid: string): Promise<ReplayedTurn[]>;
  /** The responses stored in a ground-truth file, aligned as the replay returns them (to detect drift). */
  storedGroundTruth(capability: CapabilitySpec, turns: Turn[]): ReplayedTurn[];
  stats(): { calls: number; sessionsStarted: number; callLatenciesMs: number[] };
}

export function createMcpReplay(benchmark: Benchmark, opts: McpReplayOptions = {}): McpReplayPort {
  const connect = opts.connect ?? connectMcpSession;
  const store = opts.groundTruth ?? createMemoryGroundTruthStore();
  const inFlightGt = new Map<string, Promise<ReplayedTurn[]>>();
  const latencies: number[] = [];
  let calls = 0;
  // Where ground-truth responses came from: the store as given (replay-gt's file), or replays here.
  const replayedHere = new Set<string>();
  let fromStore = false;

  const envOf = (cap: CapabilitySpec): EnvironmentSpec => {
    if (!cap.environment) throw new ReplayError(`capability ${cap.id} declares no environment to replay against`);
    return cap.environment;
  };
  const pool = new SessionPool(
    opts.concurrency ?? 16,
    (key) => {
      const [capId, domain] = key.split("\0") as [string, string];
      const cap = benchmark.capabilities.find((c) => c.spec.id === capId)!.spec;
      return connect(envOf(cap).server, { domain, capability: cap.directory, benchmark: benchmark.root });
    },
    opts.perKey ?? 1,
  );

  /** Runs turns of calls in one fresh server state; returns one response per call. */
  async function runDialogue(cap: CapabilitySpec, domain: string, uuid: string, turns: { turnId: number; calls: ToolCall[] }[]): Promise<ReplayedTurn[]> {
    const env = envOf(cap);
    const key = `${cap.id}\0${domain}`;
    const session = await pool.acquire(key);
    let healthy = true;
    try {
      if (env.resetTool) await callOrFail(session, env, env.resetTool, {}, cap, domain);
      const tools = await session.tools();
      for (const p of env.prelude) await callOrFail(session, env, p.name, substituteArgs(p.arguments, { uuid, domain }), cap, domain);
      const out: ReplayedTurn[] = [];
      for (const turn of turns) {
        const responses: unknown[] = [];
        for (const call of turn.calls) {
          const tool = tools.get(call.name);
          if (!tool) {
            responses.push(toolError(`unknown tool ${call.name}`));
            continue;
          }
          const started = performance.now();
          const r = await session.call(call.name, coerceArguments(call.arguments, tool.inputSchema), env.callTimeoutMs);
          latencies.push(performance.now() - started);
          calls++;
          responses.push(shapeResponse(env, call, r));
        }
        out.push({ turnId: turn.turnId, responses });
      }
      return out;
    } catch (err) {
      healthy = false;
      if (err instanceof SessionClosedError) throw new ReplayError(err.message);
      throw err;
    } finally {
      // Without a reset tool a session is never reused: the next dialogue gets a new one.
      pool.release(key, session, healthy && env.resetTool !== undefined);
    }
  }

  async function callOrFail(session: ToolSession, env: EnvironmentSpec, name: string, args: Record<string, unknown>, cap: CapabilitySpec, domain: string) {
    const r = await session.call(name, args, env.callTimeoutMs);
    if (r && typeof r === "object" && "error" in r && Object.keys(r).length === 1) {
      throw new ReplayError(`environment set-up call ${name} failed for ${cap.id}/${domain}: ${String((r as { error: unknown }).error)}`);
    }
  }

  /** How many leading calls of a ground-truth turn the replay drops. */
  function dropped(cap: CapabilitySpec, turn: Turn, index: number): number {
    return leadingCallsDropped(envOf(cap), turn.calls, index);
  }

  function groundTruthTurns(cap: CapabilitySpec, turns: Turn[]) {
    return turns.map((t, i) => ({ turnId: t.turnId, calls: t.calls.slice(dropped(cap, t, i)) }));
  }

  function shapeResponse(env: EnvironmentSpec, call: ToolCall, r: unknown): unknown {
    return env.retrieverResponses === "text_chunks" && matchesAny(call.name, benchmark.spec.retrieverTools) ? retrieverChunks(r) : r;
  }

  function storedGroundTruth(cap: CapabilitySpec, turns: Turn[]): ReplayedTurn[] {
    const env = envOf(cap);
    return turns.map((t, i) => {
      const k = dropped(cap, t, i);
      return { turnId: t.turnId, responses: (t.responses ?? []).slice(k).map((r, j) => (t.calls[k + j] ? shapeResponse(env, t.calls[k + j]!, r) : r)) };
    });
  }

  function predictionTurns(cap: CapabilitySpec, uuid: string, turns: Turn[]) {
    const prelude = envOf(cap).prelude.map((p) => ({ name: p.name, arguments: substituteArgs(p.arguments, { uuid }) }));
    return turns.map((t, i) => {
      let calls = t.calls;
      // The environment makes the prelude calls; a prediction that repeats them would call twice.
      if (i === 0) {
        let k = 0;
        while (k < prelude.length && k < calls.length && sameCall(calls[k]!, prelude[k]!)) k++;
        calls = calls.slice(k);
      }
      return { turnId: t.turnId, calls };
    });
  }

  async function replayGroundTruth(cap: CapabilitySpec, uuid: string): Promise<ReplayedTurn[]> {
    const key = `${cap.id}\0${uuid}`;
    const cached = store.get(cap.id, uuid);
    if (cached) {
      if (!replayedHere.has(key)) fromStore = true;
      return cached;
    }
    let p = inFlightGt.get(key);
    if (!p) {
      const gt = findDialogue(benchmark, cap.id, uuid);
      if (!gt) throw new ReplayError(`no ground truth for ${cap.id}/${uuid}`);
      p = runDialogue(cap, gt.domain, uuid, groundTruthTurns(cap, gt.turns)).then((turns) => {
        // Counted once replayed: a replay that failed gave the run no ground truth.
        replayedHere.add(key);
        store.set(cap.id, uuid, turns);
        return turns;
      });
      inFlightGt.set(key, p);
      p.finally(() => inFlightGt.delete(key)).catch(() => {});
    }
    return p;
  }

  return {
    mode: "mcp",
    verified: true,
    providesResponses: true,
    async replay({ capability, groundTruth, prediction }: ReplayRequest): Promise<ReplayOutcome> {
      const predicted = await runDialogue(capability, groundTruth.domain, groundTruth.uuid, predictionTurns(capability, groundTruth.uuid, prediction.turns));
      const gt = await replayGroundTruth(capability, groundTruth.uuid);
      return { prediction: predicted, groundTruth: gt };
    },
    replayGroundTruth,
    storedGroundTruth,
    groundTruthSource: () => (fromStore ? (replayedHere.size > 0 ? "stored+replayed" : "stored") : replayedHere.size > 0 ? "replayed" : "environment"),
    stats: () => ({ calls, sessionsStarted: pool.started, callLatenciesMs: latencies }),
    close: () => pool.close(),
  };
}

function substituteArgs(args: Record<string, unknown>, vars: Record<string, string>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).map(([k, v]) => [k, typeof v === "string" ? substitute(v, vars) : v]));
}

function sameCall(a: ToolCall, b: { name: string; arguments: Record<string, unknown> }): boolean {
  return a.name === b.name && JSON.stringify(a.arguments) === JSON.stringify(b.arguments);
}
