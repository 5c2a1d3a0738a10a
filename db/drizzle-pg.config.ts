import { defineConfig } from "drizzle-kit";

// Postgres migrations (hosted mode): generated from db/schema-pg.ts, applied at start-up.
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/schema-pg.ts",
  out: "./db/migrations-pg",
  casing: "snake_case",
});
