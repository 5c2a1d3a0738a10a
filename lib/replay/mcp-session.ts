/**
 * One connection to a tool server over MCP (stdio or Streamable HTTP), through the official
 * SDK. Tools are listed once per session. A call that fails as a call (isError, timeout,
 * bad arguments) returns an error response; a server that goes away raises
 * `SessionClosedError`, so the replay can fail that dialogue and start a new server.
 */
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ServerSpec } from "../benchmark/spec";
import type { JsonSchema } from "./coerce-arguments";
import { normaliseToolResult, toolError, type McpToolResult } from "./tool-result";

export interface ToolInfo {
  name: string;
  inputSchema: JsonSchema;
}

export interface ToolSession {
  readonly alive: boolean;
  tools(): Promise<Map<string, ToolInfo>>;
  /** The normalised response, or `{error}`; throws SessionClosedError when the server is gone. */
  call(name: string, args: Record<string, unknown>, timeoutMs: number): Promise<unknown>;
  close(): Promise<void>;
}

export class SessionClosedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SessionClosedError";
  }
}

export type SessionVars = Record<string, string>;

/** Opens sessions; the replay receives one of these, so tests and other transports can stand in. */
export type ConnectSession = (server: ServerSpec, vars: SessionVars) => Promise<ToolSession>;

export function substitute(text: string, vars: SessionVars): string {
  return text.replace(/\{(\w+)\}/g, (m, k: string) => vars[k] ?? m);
}

const STDERR_TAIL = 2000;
const CONNECTION_CLOSED = -32000;

export const connectMcpSession: ConnectSession = async (server, vars) => {
  let stderrTail = "";
  let transport: Transport;
  if ("command" in server) {
    const cwd = path.resolve(vars.benchmark ?? ".", server.cwd ?? ".");
    const env: Record<string, string> = { ...getDefaultEnvironment() };
    for (const [k, v] of Object.entries(server.env)) env[k] = substitute(v, vars);
    const stdio = new StdioClientTransport({ command: substitute(server.command, vars), args: server.args.map((a) => substitute(a, vars)), env, cwd, stderr: "pipe" });
    stdio.stderr?.on("data", (chunk: Buffer) => {
      stderrTail = (stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL);
    });
    transport = stdio;
  } else {
    const headers = Object.fromEntries(Object.entries(server.headers).map(([k, v]) => [k, substitute(v, vars)]));
    transport = new StreamableHTTPClientTransport(new URL(substitute(server.url, vars)), { requestInit: { headers } });
  }

  const client = new Client({ name: "agentboard-replay", version: "1.0.0" });
  let alive = true;
  const describe = (when?: string) => {
    const tail = stderrTail.trim().split("\n").slice(-3).join(" | ");
    return `the tool server for ${vars.capability ?? "?"}/${vars.domain ?? "?"} closed the connection${when ? ` ${when}` : ""}${tail ? ` (stderr: ${tail})` : ""}`;
  };
  client.onclose = () => {
    alive = false;
  };
  try {
    await client.connect(transport);
  } catch (err) {
    await client.close().catch(() => {});
    throw new SessionClosedError(`cannot start ${"command" in server ? server.command : server.url}: ${err instanceof Error ? err.message : String(err)}; ${describe()}`);
  }

  let tools: Promise<Map<string, ToolInfo>> | undefined;
  const listAll = async () => {
    const map = new Map<string, ToolInfo>();
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      for (const t of page.tools) map.set(t.name, { name: t.name, inputSchema: t.inputSchema as JsonSchema });
      cursor = page.nextCursor;
    } while (cursor);
    return map;
  };

  return {
    get alive() {
      return alive;
    },
    tools() {
      tools ??= listAll();
      return tools;
    },
    async call(name, args, timeoutMs) {
      if (!alive) throw new SessionClosedError(describe(`before ${name}`));
      try {
        const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: timeoutMs })) as McpToolResult;
        return normaliseToolResult(result);
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        if (!alive || code === CONNECTION_CLOSED) {
          alive = false;
          throw new SessionClosedError(describe(`during ${name}`));
        }
        // Timeouts, invalid params and other per-call failures are the call's response.
        return toolError(err instanceof Error ? err.message : String(err));
      }
    },
    async close() {
      alive = false;
      await client.close().catch(() => {});
    },
  };
};
