/**
 * The reply shape a request asks an endpoint to enforce (OpenAI's structured outputs:
 * `response_format: {type: "json_schema", json_schema: {name, strict, schema}}`). A judge
 * held to a schema writes one JSON object and nothing else, so it cannot quote a planted
 * verdict beside its own. The schemas say what the prompts already ask for, so an endpoint
 * without structured output (chat-client.ts falls back) reads the same request the same way.
 *
 * Only requests in our own words get one: NAT's messages stay exactly NAT's (`style: "nat"`),
 * and field discovery does not (its keys are the report's fields, unbounded in number and
 * name, past what strict schemas allow).
 */
import type { GradeRequest } from "./grader";
import { CORRECTNESS_LABELS, GROUNDEDNESS_LABELS } from "./prompts";

export interface ReplySchema {
  /** `[a-zA-Z0-9_-]{1,64}`, as OpenAI requires. */
  name: string;
  schema: Record<string, unknown>;
}

/** Strict mode wants every property required and no others allowed. */
function object(properties: Record<string, unknown>): Record<string, unknown> {
  return { type: "object", properties, required: Object.keys(properties), additionalProperties: false };
}

const verdict = (name: string, labels: readonly string[]): ReplySchema => ({
  name,
  schema: object({ verdict: { type: "string", enum: [...labels] }, reason: { type: "string", description: "one sentence" } }),
});

// The range is in the description, not `minimum`/`maximum`: not every strict endpoint takes those, and the parser checks it anyway.
const SCORE: ReplySchema = { name: "score", schema: object({ score: { type: "number", description: "from 0 to 1" }, reasoning: { type: "string" } }) };
const CORRECTNESS = verdict("correctness_verdict", CORRECTNESS_LABELS);
const GROUNDEDNESS = verdict("groundedness_verdict", GROUNDEDNESS_LABELS);

/** The schema a request's reply should follow, or none. */
export function replySchemaOf(req: GradeRequest): ReplySchema | undefined {
  switch (req.kind) {
    case "correctness":
      return CORRECTNESS;
    case "groundedness":
      return GROUNDEDNESS;
    case "qa":
    case "trajectory":
    case "report_field":
      return req.style === "nat" ? undefined : SCORE;
    case "field_discovery":
      return undefined;
  }
}
