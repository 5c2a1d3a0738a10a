/** The benchmark a folder without `benchmark.yaml` describes: VAKRA's four capabilities. */
import type { BenchmarkSpecInput } from "./spec";

export const vakraDefaults: BenchmarkSpecInput = {
  slug: "vakra",
  title: "VAKRA",
  version: "1",
  compat: "strict",
  retrieverTools: ["query_*", "retriever_*"],
  capabilities: [
    {
      id: "api_chaining",
      label: "API chaining",
      directory: "capability_1_bi_apis",
      description: "Chains business-intelligence data tools with server-side handles to answer a question.",
    },
    {
      id: "tool_selection",
      label: "Tool selection",
      directory: "capability_2_dashboard_apis",
      description: "Picks the right endpoint among many similar dashboard APIs.",
    },
    {
      id: "multihop",
      label: "Multi-hop reasoning",
      directory: "capability_3_multihop_reasoning",
      description: "Feeds the output of one API call into the next to reach the answer.",
    },
    {
      id: "multiturn",
      label: "Multi-hop multi-source + policy",
      directory: "capability_4_multiturn",
      description: "Multi-turn dialogues over APIs and document retrievers under a tool-use policy.",
      policies: true,
      weights: { multiSource: 2 },
    },
  ],
};
