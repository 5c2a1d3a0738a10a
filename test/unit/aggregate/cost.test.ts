/** The per-run cost summary: latency over items, usage totals from records or metadata. */
import { describe, expect, it } from "vitest";
import { summarizeCost } from "@/lib/aggregate/cost";
import type { PredictedDialogue } from "@/lib/formats/dialogue";
import type { AgentOutput } from "@/lib/formats/eval-dataset";
import type { Usage } from "@/lib/formats/usage";
import { output } from "../evaluators/helpers";

function dialogue(uuid: string, durationS: number | null, usage?: Partial<Usage> | null): PredictedDialogue {
  return {
    uuid,
    domain: "d",
    status: "success",
    error: "",
    durationS,
    usage: usage ? { inputTokens: null, outputTokens: null, totalTokens: null, costUsd: null, ...usage } : null,
    turns: [],
  };
}

function submission(dialogues: PredictedDialogue[], opts: { outputs?: AgentOutput[]; metadata?: Record<string, unknown> | null } = {}) {
  return {
    capabilities: new Map([["cap", new Map(dialogues.map((d) => [d.uuid, d]))]]),
    outputs: new Map(opts.outputs ? [["qa", new Map(opts.outputs.map((o, i) => [`o${i}`, o]))]] : []),
    metadata: opts.metadata ?? null,
  };
}

describe("summarizeCost: latency", () => {
  it("takes the median and the 95th percentile over the items that report a duration, interpolating between ranks", () => {
    // 1..20 s and one item without a duration: p95 sits between the 19th and 20th values.
    const ds = Array.from({ length: 20 }, (_, i) => dialogue(`u${i}`, 20 - i));
    const s = summarizeCost(submission([...ds, dialogue("none", null)]));
    expect(s.items).toBe(21);
    expect(s.latency).toEqual({ n: 20, medianS: 10.5, p95S: expect.closeTo(19.05, 10), meanS: 10.5 });
  });

  it("is null when no item reports a duration; one item is its own median and p95", () => {
    expect(summarizeCost(submission([dialogue("a", null)])).latency).toBeNull();
    expect(summarizeCost(submission([dialogue("a", 7)])).latency).toEqual({ n: 1, medianS: 7, p95S: 7, meanS: 7 });
  });

  it("measures evaluator outputs from their timestamps and trajectory events, and survives a very long list", () => {
    const events = [{ type: "LLM_END", timestamp: 109, spanStart: 100, name: "m", uuid: null, parentId: null, input: null, output: null, toolSelections: [], toolCallId: null, ancestorName: null }];
    const long = Array.from({ length: 300_000 }, (_, i) => i / 1000);
    const s = summarizeCost(submission([], { outputs: [output({ timestamps: [101, 103] }), output({ events }), output({ timestamps: long }), output()] }));
    expect(s.items).toBe(4);
    // 2 s, 9 s (span start to end), 299.999 s; the output without timestamps has no latency.
    expect(s.latency?.n).toBe(3);
    expect(s.latency?.medianS).toBe(9);
  });
});

describe("summarizeCost: usage", () => {
  it("sums the records' usage, field by field", () => {
    const s = summarizeCost(
      submission([dialogue("a", 1, { inputTokens: 100, outputTokens: 10, totalTokens: 110, costUsd: 0.1 }), dialogue("b", 1, { inputTokens: 200, outputTokens: 20, totalTokens: 220, costUsd: 0.2 })]),
    );
    // 0.1 + 0.2 in floating point is 0.30000000000000004: rounded to a millionth of a dollar.
    expect(s.usage).toEqual({ source: "records", records: 2, inputTokens: 300, outputTokens: 30, totalTokens: 330, costUsd: 0.3 });
  });

  it("leaves a total unknown when some usage lacks that field, rather than understating it", () => {
    const s = summarizeCost(
      submission([
        dialogue("a", 1, { inputTokens: 100, outputTokens: 10, totalTokens: 110, costUsd: 0.5 }),
        dialogue("b", 1, { totalTokens: 500 }),
        // A record without usage at all is not counted: `records` says how many carried it.
        dialogue("c", 1, null),
      ]),
    );
    expect(s.usage).toEqual({ source: "records", records: 2, inputTokens: null, outputTokens: null, totalTokens: 610, costUsd: null });
  });

  it("falls back to the metadata's usage for the whole run, and ignores it when records carry their own", () => {
    const metadata = { agent_name: "x", usage: { prompt_tokens: 1000, completion_tokens: 50, cost_usd: 1.25 } };
    expect(summarizeCost(submission([dialogue("a", 1)], { metadata })).usage).toEqual({ source: "metadata", records: 0, inputTokens: 1000, outputTokens: 50, totalTokens: 1050, costUsd: 1.25 });
    expect(summarizeCost(submission([dialogue("a", 1, { costUsd: 0.01 })], { metadata })).usage).toEqual({ source: "records", records: 1, inputTokens: null, outputTokens: null, totalTokens: null, costUsd: 0.01 });
  });

  it("has no usage when neither records nor metadata give any (or the metadata's is unreadable)", () => {
    expect(summarizeCost(submission([dialogue("a", 1)])).usage).toBeNull();
    expect(summarizeCost(submission([dialogue("a", 1)], { metadata: { usage: "a lot" } })).usage).toBeNull();
    expect(summarizeCost(submission([dialogue("a", 1)], { metadata: { usage: { cost_usd: -1, input_tokens: 1e300 } } })).usage).toBeNull();
    expect(summarizeCost(submission([])).items).toBe(0);
  });
});

describe("summarizeCost: a bundle of trials", () => {
  it("takes latency over every trial's records and gives tokens and dollars per trial", () => {
    const t1 = submission([dialogue("a", 2, { inputTokens: 100, outputTokens: 11, totalTokens: 111, costUsd: 0.3 }), dialogue("b", 4, { inputTokens: 200, outputTokens: 20, totalTokens: 220, costUsd: 0.1 })]);
    const t2 = submission([dialogue("a", 6, { inputTokens: 300, outputTokens: 30, totalTokens: 330, costUsd: 0.2 }), dialogue("b", 8, { inputTokens: 400, outputTokens: 40, totalTokens: 440, costUsd: 0.15 })]);
    const s = summarizeCost({ ...t1, trials: [t1, t2] });
    expect(s.items).toBe(4);
    expect(s.trials).toBe(2);
    expect(s.latency).toEqual({ n: 4, medianS: 5, p95S: expect.closeTo(7.7, 10), meanS: 5 });
    // Totals 1,000 in, 101 out, 1,101 in all, $0.75: halved, tokens to whole numbers.
    expect(s.usage).toEqual({ source: "records", records: 4, inputTokens: 500, outputTokens: 51, totalTokens: 551, costUsd: 0.375 });
    // The metadata's usage is the whole bundle's: halved too.
    const meta = { usage: { input_tokens: 1000, output_tokens: 10, cost_usd: 3 } };
    const plain = (x: ReturnType<typeof submission>) => ({ ...x, capabilities: new Map([["cap", new Map([...x.capabilities.get("cap")!].map(([k, d]) => [k, { ...d, usage: null }]))]]) });
    const m = summarizeCost({ ...plain(t1), metadata: meta, trials: [plain(t1), plain(t2)] });
    expect(m.usage).toEqual({ source: "metadata", records: 0, inputTokens: 500, outputTokens: 5, totalTokens: 505, costUsd: 1.5 });
    // One trial: no `trials` field, nothing divided.
    expect(summarizeCost(t1)).not.toHaveProperty("trials");
  });
});
