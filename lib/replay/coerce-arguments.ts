/**
 * Coerces an agent's arguments to a tool's JSON Schema before replay, as VAKRA does:
 * numeric strings become numbers where a number is expected, a scalar becomes a one-item
 * list where an array is expected, values become strings where a string is expected; and
 * "true"/"false" become booleans. Anything else is passed as given: the server judges it.
 */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
}

function types(schema: JsonSchema | undefined): Set<string> {
  const out = new Set<string>();
  if (!schema) return out;
  if (typeof schema.type === "string") out.add(schema.type);
  else if (Array.isArray(schema.type)) schema.type.forEach((t) => out.add(t));
  for (const alt of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) types(alt).forEach((t) => out.add(t));
  return out;
}

export function coerceValue(value: unknown, schema: JsonSchema | undefined): unknown {
  const t = types(schema);
  if (t.size === 0 || value === null || value === undefined) return value;
  if (t.has("array")) {
    const items = schema?.items;
    return Array.isArray(value) ? value.map((v) => coerceValue(v, items)) : [coerceValue(value, items)];
  }
  if (typeof value === "string" && (t.has("number") || t.has("integer")) && !t.has("string")) {
    const trimmed = value.trim();
    if (/^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(trimmed)) {
      const n = Number(trimmed);
      if (!t.has("integer") || t.has("number") || Number.isInteger(n)) return n;
    }
    return value;
  }
  if (typeof value === "string" && t.has("boolean") && !t.has("string")) {
    if (/^true$/i.test(value.trim())) return true;
    if (/^false$/i.test(value.trim())) return false;
    return value;
  }
  if (t.has("string") && !t.has("number") && !t.has("integer") && !t.has("boolean")) {
    if (typeof value === "number" || typeof value === "boolean") return String(value);
    return value;
  }
  if (t.has("object") && typeof value === "object" && !Array.isArray(value)) return coerceArguments(value as Record<string, unknown>, schema);
  return value;
}

export function coerceArguments(args: Record<string, unknown>, schema: JsonSchema | undefined): Record<string, unknown> {
  const props = schema?.properties;
  if (!props) return args;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) out[k] = k in props ? coerceValue(v, props[k]) : v;
  return out;
}
