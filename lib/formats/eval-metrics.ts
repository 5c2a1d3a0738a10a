/**
 * The report metrics file, as NAT's report evaluator reads it: a YAML tree with exactly one
 * root key, whose nodes are sections (`fields`, `allow_dynamic_field_discovery`) or fields.
 * Every node is scored by its `method`, `llm_judge` when unset, sections included: a section
 * whose method is not `average` is judged as a whole (its fields are still scored and
 * reported). `average` needs fields to average. Agentboard adds `description` (context for
 * the judge) and `penalize_missing_fields`.
 */
import { parse as parseYaml } from "yaml";
import { z } from "zod";

export const METRIC_METHODS = ["exact_match", "f1", "regex", "non_empty", "llm_judge", "average"] as const;
export type MetricMethod = (typeof METRIC_METHODS)[number];

export interface MetricNode {
  name: string;
  /** Dotted path from the root key, e.g. `report.Summary.Time`. */
  path: string;
  method: MetricMethod;
  /** Explicit children (sections only). */
  fields: MetricNode[];
  /** Has fields or discovers them: its reference must be a mapping. */
  isSection: boolean;
  /** Score the report's unlisted fields of this section in one batched judge call. */
  discovery: boolean;
  /** Score 0 for reference fields the report lacks; null inherits the evaluator's setting. */
  penalizeMissing: boolean | null;
  /** Context for the judge: what the field holds. */
  description: string | null;
}

type RawNode = {
  method?: MetricMethod | undefined;
  fields?: Record<string, RawNode | null> | undefined;
  allow_dynamic_field_discovery?: boolean | undefined;
  penalize_missing_fields?: boolean | undefined;
  description?: string | undefined;
};

const nodeSchema: z.ZodType<RawNode | null> = z.lazy(() =>
  z
    .object({
      method: z.enum(METRIC_METHODS, { error: (iss) => `unknown method ${JSON.stringify(iss.input)}; expected one of ${METRIC_METHODS.join(", ")}` }).optional(),
      fields: z.record(z.string().min(1), nodeSchema).refine((f) => Object.keys(f).length > 0, "\"fields\" needs at least one field").optional(),
      allow_dynamic_field_discovery: z.boolean().optional(),
      penalize_missing_fields: z.boolean().optional(),
      description: z.string().optional(),
    })
    .strict()
    .nullable(),
);

export type MetricsParseResult = { ok: true; root: MetricNode } | { ok: false; errors: string[] };

export function parseMetricsYaml(text: string, file = "metrics.yaml"): MetricsParseResult {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    return { ok: false, errors: [`${file}: invalid YAML: ${err instanceof Error ? err.message : String(err)}`] };
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw) || Object.keys(raw).length !== 1) {
    return { ok: false, errors: [`${file}: expected exactly one root key (e.g. "report:") holding the metrics tree`] };
  }
  const [rootName, rootRaw] = Object.entries(raw)[0]!;
  const parsed = nodeSchema.safeParse(rootRaw);
  if (!parsed.success) {
    return {
      ok: false,
      errors: parsed.error.issues.map((i) => `${file}: ${[rootName, ...i.path.map(String)].join(".")}: ${i.message}`),
    };
  }
  const errors: string[] = [];
  const root = buildNode(rootName, rootName, parsed.data, errors, file);
  return errors.length ? { ok: false, errors } : { ok: true, root };
}

function buildNode(name: string, path: string, raw: RawNode | null, errors: string[], file: string): MetricNode {
  const r = raw ?? {};
  const isSection = r.fields !== undefined || r.allow_dynamic_field_discovery === true;
  const method: MetricMethod = r.method ?? "llm_judge";
  if (method === "average" && !isSection) errors.push(`${file}: ${path}: "average" needs "fields" or "allow_dynamic_field_discovery: true" to average over`);
  if (r.penalize_missing_fields !== undefined && !isSection) errors.push(`${file}: ${path}: "penalize_missing_fields" applies to sections only`);
  const fields = Object.entries(r.fields ?? {}).map(([k, v]) => buildNode(k, `${path}.${k}`, v, errors, file));
  return {
    name,
    path,
    method,
    fields,
    isSection,
    discovery: r.allow_dynamic_field_discovery === true,
    penalizeMissing: r.penalize_missing_fields ?? null,
    description: r.description ?? null,
  };
}

/** Every node of the tree, depth first. */
export function metricNodes(root: MetricNode): MetricNode[] {
  return [root, ...root.fields.flatMap(metricNodes)];
}
