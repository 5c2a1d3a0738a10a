/** Which tools each capability's server exposes. */
import { DOMAINS, type Domain } from "../domains";
import { retrieverTool } from "./retriever-tools";
import { dataTools } from "./data-tools";
import { endpointTools } from "./endpoint-tools";
import { resetSessionTool } from "./session-tools";
import { testTools } from "./test-tools";
import type { ToolSpec } from "./tool-spec";

export const CAPABILITIES = ["capability_1_bi_apis", "capability_2_dashboard_apis", "capability_3_multihop_reasoning", "capability_4_multiturn"] as const;
export type Capability = (typeof CAPABILITIES)[number];

export const isCapability = (value: string): value is Capability => (CAPABILITIES as readonly string[]).includes(value);

export function toolsFor(domain: Domain, capability: Capability, options: { testTools?: boolean } = {}): ToolSpec[] {
  const tools: ToolSpec[] =
    capability === "capability_1_bi_apis"
      ? [...dataTools]
      : capability === "capability_4_multiturn"
        ? // The server's own domain first, then travel and the other domains as distractors.
          [...endpointTools(domain), ...[domain, "travel" as const, ...DOMAINS.filter((d) => d !== domain)].map(retrieverTool)]
        : endpointTools(domain);
  tools.push(resetSessionTool);
  if (options.testTools) tools.push(...testTools);
  return tools;
}
