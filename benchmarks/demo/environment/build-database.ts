/** Writes a domain's generated rows into a SQLite file. */
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { DOMAIN_SEEDS, DOMAINS, SCHEMAS, type Column, type Domain } from "./domains";
import { generateRows } from "./generate-rows";

export const DEFAULT_DATA_DIR = path.join(import.meta.dirname, "data");

export const databaseFile = (dir: string, domain: Domain) => path.join(dir, `${domain}.sqlite`);

function columnSql(c: Column): string {
  const type = c.type.toUpperCase();
  if (c.role === "key") return `${c.name} INTEGER PRIMARY KEY`;
  if (c.references) return `${c.name} ${type} NOT NULL REFERENCES ${c.references}(id)`;
  const unique = c.role === "name" ? " UNIQUE" : "";
  return `${c.name} ${type} NOT NULL${unique}`;
}

export function buildDatabase(domain: Domain, file: string, seed: number): void {
  const rows = generateRows(domain, seed);
  mkdirSync(path.dirname(file), { recursive: true });
  // Build beside the target and rename, so concurrent servers never see a half-written file.
  const temp = `${file}.${process.pid}.tmp`;
  rmSync(temp, { force: true });
  const db = new Database(temp);
  try {
    db.pragma("journal_mode = OFF");
    db.transaction(() => {
      for (const table of SCHEMAS[domain]) {
        db.exec(`CREATE TABLE ${table.name} (${table.columns.map((c) => columnSql(c)).join(", ")})`);
        const names = table.columns.map((c) => c.name);
        const insert = db.prepare(`INSERT INTO ${table.name} (${names.join(", ")}) VALUES (${names.map((n) => `@${n}`).join(", ")})`);
        for (const row of rows[table.name] ?? []) insert.run(row);
      }
    })();
  } catch (err) {
    db.close();
    rmSync(temp, { force: true });
    throw err;
  }
  db.close();
  renameSync(temp, file);
}

/** Builds every missing `<dir>/<domain>.sqlite` with the fixed seeds; returns all paths. */
export function ensureDatabases(dir: string = DEFAULT_DATA_DIR): string[] {
  return DOMAINS.map((domain) => {
    const file = databaseFile(dir, domain);
    if (!existsSync(file)) buildDatabase(domain, file, DOMAIN_SEEDS[domain]);
    return file;
  });
}
