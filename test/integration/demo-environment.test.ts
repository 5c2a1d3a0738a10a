/** The demo benchmark's executable environment, through the real MCP server over stdio. */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { buildDatabase } from "../../benchmarks/demo/environment/build-database";
import { DOMAINS, SCHEMAS, type Domain } from "../../benchmarks/demo/environment/domains";
import { rankDocuments } from "../../benchmarks/demo/environment/rank-documents";
import { joinEndpoints } from "../../benchmarks/demo/environment/tools/join-endpoints";

const repo = path.resolve(import.meta.dirname, "../..");
const work = mkdtempSync(path.join(tmpdir(), "agentboard-demo-env-"));
const dataDir = path.join(work, "data");
const universesFile = path.join(work, "universes.json");
writeFileSync(
  universesFile,
  JSON.stringify({ "demo-ships": { domain: "harbor", table: "ships" }, "demo-loans": { domain: "library", table: "loans" }, broken: { domain: "harbor", table: "nope" } }),
);

const SERVER = ["--import", "tsx", "benchmarks/demo/environment/server.ts"];
const clients: Client[] = [];

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  for (const db of dbs.values()) db.close();
  rmSync(work, { recursive: true, force: true });
});

async function connect(domain: string, capability: string, env: Record<string, string> = {}): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...SERVER, "--domain", domain, "--capability", capability, "--data-dir", dataDir],
    cwd: repo,
    env: { ...getDefaultEnvironment(), DEMO_UNIVERSES: universesFile, ...env },
    stderr: "ignore",
  });
  const client = new Client({ name: "demo-environment-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

type Outcome = { isError: boolean; text: string; value: unknown; structured: unknown };

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Outcome> {
  const r = (await client.callTool({ name, arguments: args })) as { content: { type: string; text?: string }[]; isError?: boolean; structuredContent?: unknown };
  const text = r.content[0]?.text ?? "";
  const isError = r.isError === true;
  return { isError, text, value: isError ? undefined : JSON.parse(text), structured: r.structuredContent };
}

async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((t) => t.name);
}

const sha8 = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 8);

const dbs = new Map<string, Database.Database>();
function openDb(domain: string): Database.Database {
  const db = dbs.get(domain) ?? new Database(path.join(dataDir, `${domain}.sqlite`), { readonly: true });
  dbs.set(domain, db);
  return db;
}

describe("server start", () => {
  it("builds the missing databases and answers listTools (start-up time: npm run bench:hot-paths)", async () => {
    const client = await connect("harbor", "capability_2_dashboard_apis");
    const names = await toolNames(client);
    // The first start also builds all three databases.
    expect(names).toContain("get_ships_count");
    for (const domain of DOMAINS) expect(openDb(domain).prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table'").get()).toEqual({ n: 4 });
  });

  it.each([
    ["--domain", "atlantis", /unknown --domain "atlantis"/],
    ["--capability", "capability_9", /unknown --capability "capability_9"/],
  ])("rejects %s %s with exit code 2", (flag, value, message) => {
    const args = { "--domain": "harbor", "--capability": "capability_2_dashboard_apis", [flag]: value };
    const r = spawnSync(process.execPath, [...SERVER, ...Object.entries(args).flat(), "--data-dir", dataDir], { cwd: repo, encoding: "utf8", input: "" });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe("");
  });
});

describe("endpoint tools (capabilities 2 and 3)", () => {
  it.each(DOMAINS)("%s lists at least 40 endpoint tools with typed schemas", async (domain) => {
    const client = await connect(domain, "capability_2_dashboard_apis");
    const { tools } = await client.listTools();
    const endpoints = tools.filter((t) => t.name !== "reset_session");
    expect(endpoints.length).toBeGreaterThanOrEqual(40);
    expect(tools.map((t) => t.name)).toContain("reset_session");
    expect(endpoints.filter((t) => /^(query_|debug_|get_data$|filter_data$)/.test(t.name))).toEqual([]);
    const table = SCHEMAS[domain][1]!.name;
    const byId = tools.find((t) => t.name === `get_${table}_by_id`);
    expect(byId?.inputSchema.properties?.id).toMatchObject({ type: "integer" });
    expect(byId?.description).toBeTruthy();
  });

  it("answers generated and join endpoints from the database", async () => {
    const client = await connect("harbor", "capability_3_multihop_reasoning");
    const db = openDb("harbor");
    const count = await call(client, "get_ships_count");
    expect(count.value).toEqual({ count: 160 });
    expect(count.structured).toEqual({ count: 160 });

    const ship = db.prepare("SELECT * FROM ships WHERE id = 7").get() as { name: string; operator_id: number };
    const operator = db.prepare("SELECT * FROM operators WHERE id = ?").get(ship.operator_id) as { name: string };
    expect((await call(client, "get_operator_of_ship", { ship_name: ship.name.toUpperCase() })).value).toEqual(operator);
    const fleet = db.prepare("SELECT * FROM ships WHERE operator_id = ? ORDER BY id").all(ship.operator_id);
    expect((await call(client, "get_ships_by_operator", { operator_name: operator.name })).value).toEqual(fleet);

    const top = (await call(client, "top_ships_by_tonnage", { n: 2 })).value as { tonnage: number }[];
    expect(top.map((s) => s.tonnage)).toEqual((db.prepare("SELECT tonnage FROM ships ORDER BY tonnage DESC, id LIMIT 2").all() as { tonnage: number }[]).map((s) => s.tonnage));
    const stats = (await call(client, "get_berths_daily_fee_stats")).value as { min: number; max: number; mean: number };
    const expected = db.prepare("SELECT MIN(daily_fee) AS min, MAX(daily_fee) AS max, AVG(daily_fee) AS mean FROM berths").get() as { min: number; max: number; mean: number };
    expect(stats).toEqual({ min: expected.min, max: expected.max, mean: Math.round(expected.mean * 10_000) / 10_000 });

    const missing = await call(client, "get_ships_by_name", { name: "No Such Ship" });
    expect(missing.isError).toBe(true);
    expect(missing.text).toMatch(/no ships record with name "No Such Ship"/);
    const badType = await call(client, "get_ships_by_id", { id: 1.5 });
    expect(badType.isError).toBe(true);
  });
});

describe("join endpoints", () => {
  // Each join endpoint's argument names a record of this table (its first row is used).
  const ARGUMENT_TABLES: Record<string, [string, string]> = {
    operator_name: ["operators", "name"],
    ship_name: ["ships", "name"],
    berth_name: ["berths", "name"],
    author_name: ["authors", "name"],
    title: ["books", "title"],
    member_name: ["members", "name"],
    team_name: ["teams", "name"],
    rider_name: ["riders", "name"],
    race_name: ["races", "name"],
  };

  it.each(DOMAINS)("%s answers every hand-written join endpoint", async (domain) => {
    const client = await connect(domain, "capability_3_multihop_reasoning");
    const db = openDb(domain);
    expect(joinEndpoints[domain].length).toBeGreaterThanOrEqual(5);
    for (const tool of joinEndpoints[domain]) {
      const args = Object.fromEntries(
        Object.keys(tool.input).map((k) => {
          const [table, column] = ARGUMENT_TABLES[k]!;
          return [k, (db.prepare(`SELECT ${column} AS v FROM ${table} ORDER BY id LIMIT 1`).get() as { v: string }).v];
        }),
      );
      const r = await call(client, tool.name, args);
      expect(r.isError, `${tool.name}: ${r.text}`).toBe(false);
      expect(r.value).not.toBeNull();
    }
  });

  it("agrees with SQL on multi-hop joins", async () => {
    const client = await connect("velodrome", "capability_3_multihop_reasoning");
    const teams = openDb("velodrome").prepare("SELECT name FROM teams").all() as { name: string }[];
    let wins = 0;
    for (const t of teams) wins += ((await call(client, "get_wins_by_team", { team_name: t.name })).value as unknown[]).length;
    expect(wins).toBe(40);
    const library = await connect("library", "capability_3_multihop_reasoning");
    const member = openDb("library").prepare("SELECT m.name, COUNT(*) AS n FROM loans l JOIN members m ON m.id = l.member_id WHERE l.returned = 0 GROUP BY m.id ORDER BY n DESC, m.id LIMIT 1").get() as { name: string; n: number };
    const open = (await call(library, "get_unreturned_loans_by_member", { member_name: member.name })).value as { returned: number; book_title: string }[];
    expect(open).toHaveLength(member.n);
    expect(open.every((l) => l.returned === 0 && l.book_title.length > 0)).toBe(true);
  });
});

describe("retriever tools (capability 4)", () => {
  it("lists the endpoint tools and a query_ tool per collection", async () => {
    const client = await connect("velodrome", "capability_4_multiturn");
    const names = await toolNames(client);
    expect(names.filter((n) => n.startsWith("query_")).sort()).toEqual(["query_harbor", "query_library", "query_travel", "query_velodrome"]);
    expect(names).toContain("get_results_by_race");
    expect(names.length).toBeGreaterThanOrEqual(45);
  });

  it("ranks the document with the question's rare terms first", async () => {
    const client = await connect("harbor", "capability_4_multiturn");
    const r = await call(client, "query_harbor", { question: "Is pilotage compulsory for tankers?", n_results: 2 });
    const results = (r.value as { results: { id: string; title: string; text: string; score: number }[] }).results;
    expect(results).toHaveLength(2);
    expect(results[0]).toMatchObject({ id: "harbor-11", title: "Compulsory pilotage" });
    expect(results[0]!.score).toBeGreaterThan(results[1]!.score);
    expect(Number(results[0]!.score.toFixed(4))).toBe(results[0]!.score);
    expect(r.structured).toEqual(r.value);
    const travel = await call(client, "query_travel", { question: "bicycle on a flight" });
    expect((travel.value as { results: { title: string }[] }).results.map((d) => d.title)[0]).toBe("Travelling with a bicycle");
  });

  it("scores BM25 as computed by hand and breaks ties by id", () => {
    const docs = [
      { id: "b", title: "gamma", text: "beta beta delta" },
      { id: "a", title: "alpha", text: "beta" },
    ];
    // idf = ln(1 + 1.5/1.5) = ln 2; dl = 2, avgdl = 3: ln2 × 2.2 / (1 + 1.2 × (0.25 + 0.75 × 2/3)).
    expect(rankDocuments(docs, "Alpha!", 5)).toEqual([{ id: "a", title: "alpha", text: "beta", score: 0.8026 }]);
    const twins = [
      { id: "z", title: "same", text: "words here" },
      { id: "m", title: "same", text: "words here" },
    ];
    expect(rankDocuments(twins, "words", 5).map((d) => d.id)).toEqual(["m", "z"]);
    const common = "harbor ship harbor ship harbor";
    const ranked = rankDocuments(
      [
        { id: "1", title: "harbor", text: common },
        { id: "2", title: "notes", text: "the lighthouse keeper keeps a harbor log" },
        { id: "3", title: "harbor ships", text: common },
      ],
      "harbor lighthouse",
      3,
    );
    expect(ranked[0]?.id).toBe("2");
  });
});

describe("data tools (capability 1)", () => {
  const peek = (o: Outcome) => o.value as { handle: string; num_records: number; columns: string[]; first_rows: Record<string, unknown>[] };

  it("chains get_data → filter_data → count_data to the SQL count", async () => {
    const client = await connect("harbor", "capability_1_bi_apis");
    const loaded = peek(await call(client, "get_data", { tool_universe_id: "demo-ships" }));
    expect(loaded).toMatchObject({ handle: `get_data_${sha8('get_data{"tool_universe_id":"demo-ships"}')}`, num_records: 160 });
    expect(loaded.columns).toEqual(["id", "name", "flag", "tonnage", "length_m", "built_year", "operator_id"]);
    expect(loaded.first_rows).toHaveLength(3);

    const filtered = peek(await call(client, "filter_data", { data_label: loaded.handle, key_name: "flag", operator: "equals", value: "Panama" }));
    expect(filtered.handle).toBe(`filter_data_${sha8(`${loaded.handle}filter_data{"key_name":"flag","operator":"equals","value":"Panama"}`)}`);
    const expected = (openDb("harbor").prepare("SELECT COUNT(*) AS n FROM ships WHERE flag = 'Panama'").get() as { n: number }).n;
    expect(expected).toBeGreaterThan(0);
    expect((await call(client, "count_data", { data_label: filtered.handle })).value).toEqual({ count: expected });

    const heavy = peek(await call(client, "filter_data", { data_label: loaded.handle, key_name: "tonnage", operator: "greater_than", value: "100000" }));
    const mean = (await call(client, "aggregate_data", { data_label: heavy.handle, key_name: "length_m", operation: "mean" })).value;
    const sql = openDb("harbor").prepare("SELECT COUNT(*) AS n, AVG(length_m) AS mean FROM ships WHERE tonnage > 100000").get() as { n: number; mean: number };
    expect(heavy.num_records).toBe(sql.n);
    expect(mean).toEqual({ value: Math.round(sql.mean * 10_000) / 10_000 });
  });

  it("joins, groups, sorts and retrieves columns", async () => {
    const client = await connect("library", "capability_1_bi_apis");
    const db = openDb("library");
    const loans = peek(await call(client, "get_data", { tool_universe_id: "demo-loans" }));
    const joined = peek(await call(client, "join_data", { data_label: loans.handle, table: "books", key_name: "book_id", foreign_key: "id" }));
    expect(joined.num_records).toBe(1400);
    expect(joined.columns).toContain("books.genre");
    const groups = (await call(client, "group_count", { data_label: joined.handle, key_name: "books.genre" })).value as [string, number][];
    const sqlGroups = db.prepare("SELECT b.genre AS g, COUNT(*) AS n FROM loans l JOIN books b ON b.id = l.book_id GROUP BY b.genre ORDER BY n DESC, g").all() as { g: string; n: number }[];
    expect(groups).toEqual(sqlGroups.map((r) => [r.g, r.n]));

    const sorted = peek(await call(client, "sort_data", { data_label: loans.handle, key_name: "days", ascending: false }));
    const top = peek(await call(client, "select_top", { data_label: sorted.handle, n: 4 }));
    const days = (await call(client, "retrieve_column", { data_label: top.handle, key_name: "days" })).value;
    expect(days).toEqual((db.prepare("SELECT days FROM loans ORDER BY days DESC, id LIMIT 4").all() as { days: number }[]).map((r) => r.days));
    expect((await call(client, "retrieve_column", { data_label: top.handle, key_name: "id", n: 1 })).value).toHaveLength(1);
  });

  it("gives the same handles to the same derivation and forgets them on reset_session", async () => {
    const client = await connect("harbor", "capability_1_bi_apis");
    const chain = async () => {
      const a = peek(await call(client, "get_data", { tool_universe_id: "demo-ships" })).handle;
      const b = peek(await call(client, "filter_data", { data_label: a, key_name: "built_year", operator: "less_than", value: 2000 })).handle;
      const c = peek(await call(client, "sort_data", { data_label: b, key_name: "tonnage", ascending: true })).handle;
      return [a, b, c];
    };
    const first = await chain();
    const unrelated = peek(await call(client, "filter_data", { data_label: first[0], key_name: "flag", operator: "contains", value: "an" }));
    expect(first).not.toContain(unrelated.handle);
    const second = await chain();
    expect(second).toEqual(first);
    expect(first.map((h) => h.replace(/_[0-9a-f]{8}$/, ""))).toEqual(["get_data", "filter_data", "sort_data"]);

    expect((await call(client, "reset_session")).value).toEqual({ reset: true, cleared: 4 });
    const stale = await call(client, "count_data", { data_label: first[2] });
    expect(stale.isError).toBe(true);
    expect(stale.text).toMatch(new RegExp(`unknown data_label "${first[2]}"`));
  });

  it("reports bad columns, operators, handles and universes as tool errors", async () => {
    const client = await connect("harbor", "capability_1_bi_apis");
    const loaded = peek(await call(client, "get_data", { tool_universe_id: "demo-ships" }));
    const badColumn = await call(client, "filter_data", { data_label: loaded.handle, key_name: "colour", operator: "equals", value: "red" });
    expect(badColumn).toMatchObject({ isError: true });
    expect(badColumn.text).toMatch(/unknown key_name "colour".*columns are: id, name, flag/);
    const badOperator = await call(client, "filter_data", { data_label: loaded.handle, key_name: "flag", operator: "like", value: "x" });
    expect(badOperator.isError).toBe(true);
    expect(badOperator.text).toMatch(/operator/);
    const notNumeric = await call(client, "aggregate_data", { data_label: loaded.handle, key_name: "name", operation: "sum" });
    expect(notNumeric.isError).toBe(true);
    expect((await call(client, "get_data", { tool_universe_id: "demo-loans" })).text).toMatch(/belongs to domain library/);
    expect((await call(client, "get_data", { tool_universe_id: "broken" })).text).toMatch(/unknown tool_universe_id "broken"/);
    expect((await call(client, "sort_data", { data_label: "get_data_00000000", key_name: "id", ascending: true })).isError).toBe(true);
  });
});

describe("test-only tools", () => {
  const DEBUG = ["debug_echo", "debug_exit", "debug_fail", "debug_sleep"];

  it("are hidden without DEMO_TEST_TOOLS=1", async () => {
    const client = await connect("library", "capability_2_dashboard_apis");
    expect((await toolNames(client)).filter((n) => n.startsWith("debug_"))).toEqual([]);
  });

  it("are exposed and behave with DEMO_TEST_TOOLS=1", async () => {
    const client = await connect("library", "capability_2_dashboard_apis", { DEMO_TEST_TOOLS: "1" });
    expect((await toolNames(client)).filter((n) => n.startsWith("debug_")).sort()).toEqual(DEBUG);
    expect((await call(client, "debug_echo", { value: 2.5, items: ["a", "b"], label: "x" })).value).toEqual({ value: 2.5, items: ["a", "b"], label: "x" });
    expect((await call(client, "debug_echo", { value: "2.5", items: ["a"], label: "x" })).isError).toBe(true);
    expect(await call(client, "debug_fail", { message: "boom" })).toMatchObject({ isError: true, text: "boom" });
    expect((await call(client, "debug_sleep", { ms: 30 })).value).toEqual({ slept: 30 });
    await expect(client.callTool({ name: "debug_exit", arguments: { code: 3 } })).rejects.toThrow();
  });
});

describe("buildDatabase", () => {
  function digest(domain: Domain, file: string): string {
    const db = new Database(file, { readonly: true });
    const dump = Object.fromEntries(SCHEMAS[domain].map((t) => [t.name, db.prepare(`SELECT * FROM ${t.name} ORDER BY id`).all()]));
    db.close();
    return createHash("sha256").update(JSON.stringify(dump)).digest("hex");
  }

  it.each(DOMAINS)("%s is deterministic for a seed and varies with it", (domain) => {
    const [a, b, c] = ["a", "b", "c"].map((n) => path.join(work, `${domain}-${n}.sqlite`)) as [string, string, string];
    buildDatabase(domain, a, 99);
    buildDatabase(domain, b, 99);
    buildDatabase(domain, c, 100);
    expect(digest(domain, a)).toBe(digest(domain, b));
    expect(digest(domain, c)).not.toBe(digest(domain, a));
    // Rebuilding overwrites rather than appends.
    buildDatabase(domain, a, 99);
    expect(digest(domain, a)).toBe(digest(domain, b));
  });

  it("generates unique lookup names and the documented row counts", () => {
    const a = path.join(work, "velodrome-a.sqlite");
    const db = new Database(a, { readonly: true });
    expect(db.prepare("SELECT COUNT(*) AS n FROM riders").get()).toEqual({ n: 144 });
    expect(db.prepare("SELECT COUNT(*) AS n FROM riders GROUP BY name HAVING n > 1").all()).toEqual([]);
    db.close();
  });
});
