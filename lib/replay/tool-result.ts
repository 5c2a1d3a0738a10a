/**
 * MCP results as comparable values. Text content that is JSON becomes that value, other text
 * stays text; `isError` results, timeouts and transport failures become `{error: "..."}`
 * so both sides of a comparison record failures alike.
 */
export interface McpContent {
  type: string;
  text?: string;
}

export interface McpToolResult {
  content?: McpContent[];
  structuredContent?: unknown;
  isError?: boolean;
}

export interface ToolError {
  error: string;
}

export const toolError = (message: string): ToolError => ({ error: message });

export function normaliseToolResult(result: McpToolResult): unknown {
  const text = (result.content ?? [])
    .filter((c) => c.type === "text" && typeof c.text === "string")
    .map((c) => c.text!)
    .join("\n");
  if (result.isError) return toolError(text || "the tool reported an error");
  if (text === "") return result.structuredContent ?? null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Retriever results reduced to their text chunks, as VAKRA compares them. */
export function retrieverChunks(value: unknown): unknown {
  const results = value && typeof value === "object" && !Array.isArray(value) ? (value as { results?: unknown }).results : undefined;
  if (!Array.isArray(results)) return value;
  return results.map((r) => (r && typeof r === "object" && typeof (r as { text?: unknown }).text === "string" ? (r as { text: string }).text : r));
}
