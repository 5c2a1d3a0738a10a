/**
 * Dialogue universes for the data tools: universe id → the domain table `get_data` loads.
 * The benchmark generator writes universes.json; a missing file simply means no universes.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { DOMAINS, findTable, type Domain } from "./domains";

export type Universe = { domain: Domain; table: string };
export type UniverseMap = ReadonlyMap<string, Universe>;

export const DEFAULT_UNIVERSES_FILE = path.join(import.meta.dirname, "universes.json");

const universeSchema = z.object({ domain: z.enum(DOMAINS), table: z.string() });

/** Reads the file, skipping (and reporting) entries that name no known table. */
export function loadUniverses(file: string, warn: (message: string) => void = () => {}): UniverseMap {
  const map = new Map<string, Universe>();
  if (!existsSync(file)) return map;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    warn(`ignoring ${file}: ${err instanceof Error ? err.message : String(err)}`);
    return map;
  }
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
    warn(`ignoring ${file}: expected an object of universe id → {domain, table}`);
    return map;
  }
  for (const [id, value] of Object.entries(raw)) {
    const parsed = universeSchema.safeParse(value);
    if (!parsed.success || !findTable(parsed.data.domain, parsed.data.table)) {
      warn(`ignoring universe ${JSON.stringify(id)} in ${file}: expected {domain, table} naming a table of the domain`);
      continue;
    }
    map.set(id, parsed.data);
  }
  return map;
}
