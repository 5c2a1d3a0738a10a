/** The replay's session adapter over Streamable HTTP, against a real in-process MCP server. */
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { connectMcpSession } from "@/lib/replay/mcp-session";

let http: Server;
let url: string;
const seenHeaders: string[] = [];

beforeAll(async () => {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  http = createServer(async (req, res) => {
    seenHeaders.push(String(req.headers["x-benchmark"] ?? ""));
    const sid = req.headers["mcp-session-id"];
    let transport = typeof sid === "string" ? transports.get(sid) : undefined;
    if (!transport) {
      transport = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, onsessioninitialized: (id) => void transports.set(id, transport!) });
      const server = new McpServer({ name: "http-test", version: "1.0.0" });
      let counter = 0;
      server.registerTool("add", { description: "adds", inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({ content: [{ type: "text", text: JSON.stringify({ sum: a + b }) }] }));
      server.registerTool("next", { description: "a per-session counter" }, async () => ({ content: [{ type: "text", text: String(++counter) }] }));
      await server.connect(transport);
    }
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp/{domain}`;
});
afterAll(() => new Promise<void>((resolve) => http.close(() => resolve())));

describe("connectMcpSession over Streamable HTTP", () => {
  it("lists tools, calls them with substituted URL and headers, and keeps sessions apart", async () => {
    const spec = { url, headers: { "x-benchmark": "{benchmark}" } };
    const a = await connectMcpSession(spec, { domain: "harbor", capability: "c", benchmark: "demo" });
    const b = await connectMcpSession(spec, { domain: "harbor", capability: "c", benchmark: "demo" });
    expect([...(await a.tools()).keys()].sort()).toEqual(["add", "next"]);
    expect(await a.call("add", { a: 2, b: 40 }, 5_000)).toEqual({ sum: 42 });
    expect(await a.call("next", {}, 5_000)).toBe(1);
    expect(await a.call("next", {}, 5_000)).toBe(2);
    expect(await b.call("next", {}, 5_000)).toBe(1); // a new session, a fresh state
    const bad = (await a.call("add", { a: "x" }, 5_000)) as { error: string };
    expect(bad.error).toMatch(/invalid|expected number/i);
    expect(seenHeaders).toContain("demo");
    await a.close();
    await b.close();
  });
});
