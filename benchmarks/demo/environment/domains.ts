/**
 * Table metadata of the three demo domains. The schema, the generated endpoint tools and
 * the data tools' join checks are all derived from this one description.
 */
export const DOMAINS = ["harbor", "library", "velodrome"] as const;
export type Domain = (typeof DOMAINS)[number];

export type ColumnType = "integer" | "real" | "text";

/**
 * What a column is for, which decides the endpoints generated for it:
 * key = primary key, name = unique lookup name, category = few distinct values,
 * measure = numeric quantity, date = ISO date (YYYY-MM-DD), reference = foreign key.
 */
export type ColumnRole = "key" | "name" | "category" | "measure" | "date" | "reference";

export type Column = {
  name: string;
  type: ColumnType;
  role: ColumnRole;
  /** For references: the table whose id this column holds. */
  references?: string;
};

export type TableSchema = {
  name: string;
  columns: Column[];
};

const key: Column = { name: "id", type: "integer", role: "key" };
const col = (name: string, type: ColumnType, role: ColumnRole, references?: string): Column => (references ? { name, type, role, references } : { name, type, role });

export const SCHEMAS: Record<Domain, TableSchema[]> = {
  harbor: [
    { name: "operators", columns: [key, col("name", "text", "name"), col("country", "text", "category")] },
    {
      name: "ships",
      columns: [
        key,
        col("name", "text", "name"),
        col("flag", "text", "category"),
        col("tonnage", "integer", "measure"),
        col("length_m", "real", "measure"),
        col("built_year", "integer", "measure"),
        col("operator_id", "integer", "reference", "operators"),
      ],
    },
    { name: "berths", columns: [key, col("name", "text", "name"), col("length_m", "real", "measure"), col("daily_fee", "real", "measure")] },
    {
      name: "dockings",
      columns: [
        key,
        col("ship_id", "integer", "reference", "ships"),
        col("berth_id", "integer", "reference", "berths"),
        col("arrival_date", "text", "date"),
        col("departure_date", "text", "date"),
        col("cargo_tons", "real", "measure"),
        col("cargo_type", "text", "category"),
      ],
    },
  ],
  library: [
    { name: "authors", columns: [key, col("name", "text", "name"), col("country", "text", "category"), col("born_year", "integer", "measure")] },
    {
      name: "books",
      columns: [
        key,
        col("title", "text", "name"),
        col("author_id", "integer", "reference", "authors"),
        col("genre", "text", "category"),
        col("year", "integer", "measure"),
        col("pages", "integer", "measure"),
        col("copies", "integer", "measure"),
      ],
    },
    { name: "members", columns: [key, col("name", "text", "name"), col("city", "text", "category"), col("joined_year", "integer", "measure")] },
    {
      name: "loans",
      columns: [
        key,
        col("book_id", "integer", "reference", "books"),
        col("member_id", "integer", "reference", "members"),
        col("loan_date", "text", "date"),
        col("days", "integer", "measure"),
        // 0/1: SQLite has no boolean type.
        col("returned", "integer", "category"),
      ],
    },
  ],
  velodrome: [
    { name: "teams", columns: [key, col("name", "text", "name"), col("sponsor", "text", "category"), col("country", "text", "category")] },
    {
      name: "riders",
      columns: [key, col("name", "text", "name"), col("team_id", "integer", "reference", "teams"), col("country", "text", "category"), col("born_year", "integer", "measure")],
    },
    { name: "races", columns: [key, col("name", "text", "name"), col("date", "text", "date"), col("distance_km", "real", "measure"), col("category", "text", "category")] },
    {
      name: "results",
      columns: [
        key,
        col("race_id", "integer", "reference", "races"),
        col("rider_id", "integer", "reference", "riders"),
        col("position", "integer", "measure"),
        col("time_s", "integer", "measure"),
        col("avg_speed_kmh", "real", "measure"),
      ],
    },
  ],
};

/** The seeds `ensureDatabases` builds with; documents mention entities generated from them. */
export const DOMAIN_SEEDS: Record<Domain, number> = { harbor: 1701, library: 2903, velodrome: 4409 };

export const isDomain = (value: string): value is Domain => (DOMAINS as readonly string[]).includes(value);

export function findTable(domain: Domain, table: string): TableSchema | undefined {
  return SCHEMAS[domain].find((t) => t.name === table);
}

/** The unique lookup column of a table (name or title), if it has one. */
export function nameColumn(table: TableSchema): Column | undefined {
  return table.columns.find((c) => c.role === "name");
}
