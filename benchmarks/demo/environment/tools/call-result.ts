/** Turns a tool's JSON value (or its ToolError) into an MCP call result. */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ToolError, type ToolContext, type ToolSpec } from "./tool-spec";

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

export async function callTool(spec: ToolSpec, ctx: ToolContext, args: Record<string, unknown>): Promise<CallToolResult> {
  try {
    const value = await spec.run(ctx, args);
    const result: CallToolResult = { content: [{ type: "text", text: JSON.stringify(value ?? null) }] };
    if (isPlainObject(value)) result.structuredContent = value;
    return result;
  } catch (err) {
    // Unexpected failures (say, SQLite errors) are reported the same way, never crash the server.
    const message = err instanceof ToolError ? err.message : `${spec.name} failed: ${err instanceof Error ? err.message : String(err)}`;
    return { content: [{ type: "text", text: message }], isError: true };
  }
}
