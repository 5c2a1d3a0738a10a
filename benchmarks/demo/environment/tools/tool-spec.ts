/** The shape every tool module exports: a name, a description, a zod input shape and a run function. */
import type { Database } from "better-sqlite3";
import type { z } from "zod";
import type { Domain } from "../domains";
import type { Row } from "../generate-rows";
import type { UniverseMap } from "../universes";

/** A table held by the server between calls, reachable through its handle. */
export type DataTable = { columns: string[]; rows: Row[] };

/** Everything a dialogue can change; `reset_session` empties it. */
export type SessionState = { tables: Map<string, DataTable> };

export type ToolContext = {
  domain: Domain;
  db: Database;
  session: SessionState;
  universes: UniverseMap;
};

export type ToolSpec = {
  name: string;
  description: string;
  input: z.ZodRawShape;
  /** Returns the JSON result; throws ToolError for a failure the caller should see. */
  run: (ctx: ToolContext, args: Record<string, unknown>) => unknown;
};

/** A failure reported to the agent as an `isError` result, with this message. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolError";
  }
}

/** Types `run`'s arguments from the input shape, then erases them for the catalog. */
export function defineTool<S extends z.ZodRawShape>(spec: {
  name: string;
  description: string;
  input: S;
  run: (ctx: ToolContext, args: z.infer<z.ZodObject<S>>) => unknown;
}): ToolSpec {
  return spec as unknown as ToolSpec;
}

export const newSession = (): SessionState => ({ tables: new Map() });
