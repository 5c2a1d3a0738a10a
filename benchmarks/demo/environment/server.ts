/**
 * The demo benchmark's MCP tool server over stdio:
 *   node --import tsx benchmarks/demo/environment/server.ts --domain <domain> --capability <capability_dir> [--data-dir <dir>]
 * Logs go to stderr only; stdout carries the protocol.
 */
import { parseArgs } from "node:util";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import Database from "better-sqlite3";
import { z } from "zod";
import { databaseFile, DEFAULT_DATA_DIR, ensureDatabases } from "./build-database";
import { DOMAINS, isDomain } from "./domains";
import { callTool } from "./tools/call-result";
import { CAPABILITIES, isCapability, toolsFor } from "./tools/tool-catalog";
import { newSession, type ToolContext } from "./tools/tool-spec";
import { DEFAULT_UNIVERSES_FILE, loadUniverses } from "./universes";

const log = (message: string) => process.stderr.write(`[demo-environment] ${message}\n`);

function fail(message: string): never {
  log(message);
  process.exit(2);
}

function readOptions() {
  let values: { domain?: string; capability?: string; "data-dir"?: string };
  try {
    ({ values } = parseArgs({ options: { domain: { type: "string" }, capability: { type: "string" }, "data-dir": { type: "string" } }, strict: true }));
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }
  const { domain, capability } = values;
  if (!domain || !isDomain(domain)) fail(`unknown --domain ${JSON.stringify(domain ?? "")}; expected one of: ${DOMAINS.join(", ")}`);
  if (!capability || !isCapability(capability)) fail(`unknown --capability ${JSON.stringify(capability ?? "")}; expected one of: ${CAPABILITIES.join(", ")}`);
  return { domain, capability, dataDir: values["data-dir"] ?? DEFAULT_DATA_DIR };
}

const { domain, capability, dataDir } = readOptions();
ensureDatabases(dataDir);

const ctx: ToolContext = {
  domain,
  db: new Database(databaseFile(dataDir, domain), { readonly: true, fileMustExist: true }),
  session: newSession(),
  universes: loadUniverses(process.env.DEMO_UNIVERSES || DEFAULT_UNIVERSES_FILE, log),
};

const server = new McpServer({ name: `agentboard-demo-${domain}`, version: "1.0.0" });
for (const spec of toolsFor(domain, capability, { testTools: process.env.DEMO_TEST_TOOLS === "1" })) {
  server.registerTool(spec.name, { description: spec.description, inputSchema: z.object(spec.input) }, (args: Record<string, unknown>) => callTool(spec, ctx, args));
}

await server.connect(new StdioServerTransport());
log(`serving ${domain}/${capability} (${ctx.universes.size} universes)`);
