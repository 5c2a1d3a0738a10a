/** The sample agents of the demo: together they make every waterfall stage and validator path occur. */
export interface AgentProfile {
  name: string;
  description: string;
  /** Probability of answering a question the ground-truth way. */
  accuracy: number;
  errorRate?: number;
  missRate?: number;
  /** Right answers with no tool calls at all. */
  fabricates?: boolean;
  /** Calls a retriever the dialogue's policy forbids. */
  breaksPolicy?: boolean;
  /** Capability directories submitted; all when absent. */
  capabilities?: string[];
  /** Real-world shape deviations the validator reads with warnings. */
  quirks?: ("string_turn_id" | "sequence_list" | "prelude_in_prediction" | "answer_list")[];
  /** What its model charges and how much context it carries: the `usage` written on each record. */
  spend: Spend;
  /**
   * Runs the benchmark k times (`trial_1/ … trial_k/`). Whether it knows an item is drawn once
   * (`accuracy`); each trial then slips on a known item, or gets an unknown one right by luck,
   * with these probabilities, so trials differ a little and pass^k is below the mean.
   */
  trials?: { k: number; slip: number; lucky: number };
}

/**
 * An agent's spending habits. Tokens per dialogue: `prompt` + `perCall` for each tool call in,
 * `answer` + a tenth of that per call out; dollars at the model's price per million tokens.
 * `slowness` scales the seconds it takes (duration_s).
 */
export interface Spend {
  inputPerM: number;
  outputPerM: number;
  prompt: number;
  perCall: number;
  answer: number;
  slowness: number;
}

export const AGENTS: AgentProfile[] = [
  // A frontier model that reads every tool response in full: the best, and by far the dearest.
  { name: "oracle", description: "Replays the ground-truth calls and answers from them.", accuracy: 1, spend: { inputPerM: 15, outputPerM: 75, prompt: 2400, perCall: 1400, answer: 260, slowness: 1.6 } },
  {
    name: "strong-agent",
    description: "Mostly right; a few near-miss tool choices.",
    accuracy: 0.85,
    errorRate: 0.02,
    quirks: ["string_turn_id", "sequence_list"],
    spend: { inputPerM: 3, outputPerM: 15, prompt: 1800, perCall: 1000, answer: 200, slowness: 1 },
  },
  {
    name: "weak-agent",
    description: "Often picks the wrong tool or argument; some crashes and gaps.",
    accuracy: 0.4,
    errorRate: 0.08,
    missRate: 0.06,
    quirks: ["answer_list"],
    spend: { inputPerM: 0.15, outputPerM: 0.6, prompt: 1200, perCall: 700, answer: 120, slowness: 0.6 },
  },
  // The strong agent's model with long retriever passages in its context: dearer and slower for a lower score.
  { name: "policy-breaker", description: "Accurate, but consults retrievers the policy forbids.", accuracy: 0.95, breaksPolicy: true, spend: { inputPerM: 3, outputPerM: 15, prompt: 2600, perCall: 1900, answer: 220, slowness: 1.3 } },
  { name: "fabricator", description: "Right answers without the tool calls that support them.", accuracy: 1, fabricates: true, spend: { inputPerM: 1, outputPerM: 5, prompt: 1500, perCall: 0, answer: 140, slowness: 0.3 } },
  {
    name: "partial-entry",
    description: "Submits two capabilities only.",
    accuracy: 0.8,
    capabilities: ["capability_1_bi_apis", "capability_2_dashboard_apis"],
    quirks: ["prelude_in_prediction"],
    spend: { inputPerM: 1, outputPerM: 5, prompt: 1500, perCall: 900, answer: 160, slowness: 0.9 },
  },
  // Four runs of one agent: the demo's bundle of trials (README "Trials").
  {
    name: "steady-agent",
    description: "Runs every item four times (four trials); usually right, with a few slips and lucky guesses from one run to the next.",
    accuracy: 0.78,
    errorRate: 0.01,
    trials: { k: 4, slip: 0.08, lucky: 0.12 },
    // Dearer than the strong agent for a lower mean: off the accuracy-versus-cost front.
    spend: { inputPerM: 4, outputPerM: 16, prompt: 1800, perCall: 1000, answer: 200, slowness: 1.1 },
  },
];

/** An oracle bundle with injected mistakes, for the validator's error paths. */
export const INVALID_AGENT = "invalid-bundle";

/** A number in [0, 1) from a text, the same on every run (FNV-1a): jitter that draws nothing from an agent's random stream, so no score moves. */
export function unit(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h / 2 ** 32;
}

/** The `usage` an agent records for one dialogue with `calls` tool calls; an errored one ran its loop until the step budget was spent. */
export function demoUsage(agent: AgentProfile, uuid: string, calls: number, errored: boolean): { input_tokens: number; output_tokens: number; cost_usd: number } {
  const s = agent.spend;
  const jitter = 0.85 + 0.3 * unit(`${agent.name}\0${uuid}`);
  const input = Math.round((errored ? s.prompt * 8 : s.prompt + s.perCall * calls) * jitter);
  const output = Math.round((errored ? s.answer * 4 : s.answer + (s.answer / 10) * calls) * jitter);
  return { input_tokens: input, output_tokens: output, cost_usd: Number(((input * s.inputPerM + output * s.outputPerM) / 1e6).toFixed(6)) };
}
