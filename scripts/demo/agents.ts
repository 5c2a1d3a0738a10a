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
}

export const AGENTS: AgentProfile[] = [
  { name: "oracle", description: "Replays the ground-truth calls and answers from them.", accuracy: 1 },
  { name: "strong-agent", description: "Mostly right; a few near-miss tool choices.", accuracy: 0.85, errorRate: 0.02, quirks: ["string_turn_id", "sequence_list"] },
  { name: "weak-agent", description: "Often picks the wrong tool or argument; some crashes and gaps.", accuracy: 0.4, errorRate: 0.08, missRate: 0.06, quirks: ["answer_list"] },
  { name: "policy-breaker", description: "Accurate, but consults retrievers the policy forbids.", accuracy: 0.95, breaksPolicy: true },
  { name: "fabricator", description: "Right answers without the tool calls that support them.", accuracy: 1, fabricates: true },
  {
    name: "partial-entry",
    description: "Submits two capabilities only.",
    accuracy: 0.8,
    capabilities: ["capability_1_bi_apis", "capability_2_dashboard_apis"],
    quirks: ["prelude_in_prediction"],
  },
];

/** An oracle bundle with injected mistakes, for the validator's error paths. */
export const INVALID_AGENT = "invalid-bundle";
