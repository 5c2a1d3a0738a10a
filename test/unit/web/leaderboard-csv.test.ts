/** The leaderboard exports: header, visible columns, intervals, RFC 4180 quoting, formula-injection protection, missing values; JSON with the same fields. */
import { describe, expect, it } from "vitest";
import { columnIds, parseView } from "@/components/leaderboard/view-state";
import { badgeNames, csvCell, defuseFormulas, leaderboardCsv, leaderboardCsvHeader, leaderboardRecords } from "@/lib/queries/leaderboard-csv";
import type { LeaderboardEntry } from "@/lib/queries/types";

const CAPS = [{ id: "api_chaining" }, { id: "multihop" }];
const ALL = { columns: columnIds(CAPS.map((c) => c.id)) };
/** The export options of a board URL's view, as the API route builds them. */
const visible = (query: string, origin: string | null = null) => {
  const view = parseView(new URLSearchParams(query), CAPS.map((c) => c.id));
  return { columns: columnIds(CAPS.map((c) => c.id)).filter((c) => !view.hide.includes(c)), origin };
};

function entry(over: Partial<LeaderboardEntry> = {}): LeaderboardEntry {
  return {
    id: 1,
    rank: 1,
    agent: "agent",
    models: ["m1"],
    maintainer: "Lab",
    overall: { score: 85.22222, ciLow: 81.15384, ciHigh: 89.1132, submitted: true, complete: true },
    capabilities: {
      api_chaining: { score: 90.666666, ciLow: 84, ciHigh: 97.3, submitted: true },
      multihop: { score: 81.3333, ciLow: 73.3, ciHigh: 89.3, submitted: true },
    },
    coverage: 0.94666667,
    date: "2026-11-22T04:59:54.921Z",
    badges: { verified: true, partial: false, demo: false, flagged: false },
    flags: [],
    cost: { latencyMedianS: 12.3456, latencyP95S: 30.5, totalTokens: 1234567, costUsd: 4.1234567 },
    trials: 1,
    passK: null,
    ...over,
  };
}

/** A minimal RFC 4180 reader, to check that what we write reads back as the same cells. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(cell);
      cell = "";
    } else if (ch === "\r" && text[i + 1] === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      i++;
    } else cell += ch;
  }
  if (cell || row.length) rows.push([...row, cell]);
  return rows;
}

describe("csvCell", () => {
  it("leaves plain text alone", () => {
    expect(csvCell("strong-agent")).toBe("strong-agent");
    expect(csvCell("")).toBe("");
  });

  it("quotes commas, quotes and line breaks, doubling inner quotes", () => {
    expect(csvCell("a,b")).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell("two\nlines")).toBe('"two\nlines"');
    expect(csvCell("cr\rhere")).toBe('"cr\rhere"');
  });

  it("defuses cells a spreadsheet would run as a formula", () => {
    expect(csvCell("=1+1")).toBe("'=1+1");
    expect(csvCell("+cmd")).toBe("'+cmd");
    expect(csvCell("-2+3")).toBe("'-2+3");
    expect(csvCell("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvCell("\t=x").startsWith("'\t")).toBe(true);
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`);
    expect(csvCell("a=b")).toBe("a=b");
  });

  // A spreadsheet in a locale that separates with ";" (or set to tab or "|") splits a cell
  // again: every piece that could start a cell must be defused, not only the first.
  it("defuses a formula after any separator or line break", () => {
    expect(defuseFormulas("x;=HYPERLINK(\"http://evil\")")).toBe("x;'=HYPERLINK(\"http://evil\")");
    expect(defuseFormulas("a|+b")).toBe("a|'+b");
    expect(defuseFormulas("a\t@SUM(1)")).toBe("a\t'@SUM(1)");
    expect(defuseFormulas("line\n-2+3")).toBe("line\n'-2+3");
    expect(defuseFormulas("x; =1")).toBe("x; '=1");
    expect(defuseFormulas('x;"=cmd"')).toBe(`x;"'=cmd"`);
    expect(defuseFormulas("x;\uFF1D1")).toBe("x;'\uFF1D1");
    expect(defuseFormulas("a=b;c-d, e@f")).toBe("a=b;c-d, e@f");
  });

  it("leaves no piece of any cell starting with a trigger, whatever separator a reader picks", () => {
    const hostile = ["x;=1", "=a;=b;;=c", "\t=x", "a,\"=b\"", "q|@x", "a\r\n+b", " ;-1", "x;\t=y"];
    for (const value of hostile) {
      const cell = csvCell(value);
      for (const sep of [",", ";", "\t", "|", "\n", "\r"]) {
        for (const piece of cell.split(sep)) expect(piece.replace(/^[ "]*/, ""), `${JSON.stringify(value)} split on ${JSON.stringify(sep)}`).not.toMatch(/^[=+\-@\uFF1D\uFF0B\uFF0D\uFF20]/);
      }
    }
  });
});

describe("leaderboardCsv", () => {
  const HEADER = [
    "rank",
    "id",
    "agent",
    "url",
    "overall",
    "overall_ci_low",
    "overall_ci_high",
    "api_chaining",
    "api_chaining_ci_low",
    "api_chaining_ci_high",
    "multihop",
    "multihop_ci_low",
    "multihop_ci_high",
    "trials",
    "cost_usd",
    "total_tokens",
    "latency_median_s",
    "latency_p95_s",
    "coverage",
    "models",
    "maintainer",
    "date",
    "badges",
  ];

  it("starts with the header row: every visible column, each score with its interval, the entry's id and URL", () => {
    expect(leaderboardCsvHeader(CAPS, ALL)).toEqual(HEADER);
    expect(leaderboardCsv(CAPS, [], ALL)).toBe(`${HEADER.join(",")}\r\n`);
  });

  it("writes one CRLF-terminated row per entry, in the order given, with rounded numbers", () => {
    const csv = leaderboardCsv(CAPS, [entry({ id: 2, rank: 3, agent: "b" }), entry({ id: 1, rank: 1, agent: "a", models: ["m1", "m2"] })], ALL);
    const lines = csv.split("\r\n");
    expect(lines).toHaveLength(4);
    expect(lines[3]).toBe("");
    expect(lines[1]).toBe("3,2,b,/submissions/2,85.22,81.15,89.11,90.67,84,97.3,81.33,73.3,89.3,1,4.123457,1234567,12.35,30.5,0.9467,m1,Lab,2026-11-22T04:59:54.921Z,verified");
    expect(lines[2]).toBe("1,1,a,/submissions/1,85.22,81.15,89.11,90.67,84,97.3,81.33,73.3,89.3,1,4.123457,1234567,12.35,30.5,0.9467,m1; m2,Lab,2026-11-22T04:59:54.921Z,verified");
  });

  it("leaves out hidden columns with all their fields; rank, id, agent and URL always stay", () => {
    const opts = visible("hide=multihop,overall,cost,latency_p95,maintainer,badges,rank,agent");
    expect(leaderboardCsvHeader(CAPS, opts)).toEqual(["rank", "id", "agent", "url", "api_chaining", "api_chaining_ci_low", "api_chaining_ci_high", "trials", "total_tokens", "latency_median_s", "coverage", "models", "date"]);
    const [, row] = parseCsv(leaderboardCsv(CAPS, [entry()], opts));
    expect(row).toEqual(["1", "1", "agent", "/submissions/1", "90.67", "84", "97.3", "1", "1234567", "12.35", "0.9467", "m1", "2026-11-22T04:59:54.921Z"]);
  });

  it("makes entry URLs absolute when the site's origin is known", () => {
    const [, row] = parseCsv(leaderboardCsv(CAPS, [entry({ id: 42 })], visible("", "https://board.example/sub")));
    expect(row![3]).toBe("https://board.example/sub/submissions/42");
  });

  it("leaves a capability that was not submitted (or is absent), its interval and an unreported cost empty, and lists every badge", () => {
    const e = entry({
      capabilities: { api_chaining: { score: 0, ciLow: 0, ciHigh: 0, submitted: false } },
      badges: { verified: false, partial: true, demo: true, flagged: false },
      flags: [],
      cost: { latencyMedianS: null, latencyP95S: 3, totalTokens: null, costUsd: null },
    });
    const [header, row] = parseCsv(leaderboardCsv(CAPS, [e], ALL));
    const cell = (name: string) => row![header!.indexOf(name)];
    expect(row!.slice(7, 13)).toEqual(["", "", "", "", "", ""]);
    expect([cell("cost_usd"), cell("total_tokens"), cell("latency_median_s"), cell("latency_p95_s")]).toEqual(["", "", "", "3"]);
    expect(cell("badges")).toBe("partial; demo");
  });

  it("round-trips hostile user-supplied text through a CSV reader, with formulas defused", () => {
    const e = entry({ agent: '=cmd|" /C calc"!A0', models: ["a,b", "+x"], maintainer: "line\r\nbreak" });
    const rows = parseCsv(leaderboardCsv(CAPS, [e], ALL));
    expect(rows).toHaveLength(2);
    const cell = (name: string) => rows[1]![rows[0]!.indexOf(name)];
    expect(cell("agent")).toBe(`'=cmd|" /C calc"!A0`);
    expect(cell("models")).toBe("a,b; '+x"); // the second model could start a cell in a ";" locale
    expect(cell("maintainer")).toBe("line\r\nbreak");
    expect(rows[1]).toHaveLength(HEADER.length);
  });

  it("exports pass^k in the pass^k view, as the cells show it: empty for one trial and for a capability not submitted", () => {
    const opts = { ...visible("metric=passk&hide=cost,tokens,latency,latency_p95,coverage,models,maintainer,date,badges"), metric: "passk" as const };
    expect(leaderboardCsvHeader(CAPS, opts)).toEqual(["rank", "id", "agent", "url", "overall_pass_k", "api_chaining_pass_k", "multihop_pass_k", "trials"]);
    const four = entry({ id: 2, trials: 4, passK: { overall: 58.6049, capabilities: { api_chaining: 57.3333, multihop: 61.3333 } }, capabilities: { api_chaining: { score: 74, ciLow: 66, ciHigh: 83, submitted: true }, multihop: { score: 0, ciLow: 0, ciHigh: 0, submitted: false } } });
    const rows = parseCsv(leaderboardCsv(CAPS, [four, entry({ id: 1 })], opts));
    expect(rows[1]).toEqual(["1", "2", "agent", "/submissions/2", "58.6", "57.33", "", "4"]);
    expect(rows[2]).toEqual(["1", "1", "agent", "/submissions/1", "", "", "", "1"]);
    expect(leaderboardRecords(CAPS, [four], opts)[0]).toMatchObject({ overall_pass_k: 58.6, api_chaining_pass_k: 57.33, multihop_pass_k: null, trials: 4 });
  });

  it("names badges in a fixed order", () => {
    expect(badgeNames({ verified: true, partial: false, demo: true, flagged: false })).toEqual(["verified", "demo"]);
    expect(badgeNames({ demo: true, partial: true, verified: true, flagged: false })).toEqual(["verified", "partial", "demo"]);
    expect(badgeNames({ verified: false, partial: false, demo: false, flagged: false })).toEqual([]);
  });
});

describe("leaderboardRecords (the JSON export)", () => {
  it("has exactly the CSV's fields for the same view, with numbers, lists and nulls typed", () => {
    const opts = visible("hide=multihop,date", "https://board.example");
    const e = entry({ id: 7, capabilities: { api_chaining: { score: 50, ciLow: 40, ciHigh: 61, submitted: true } }, cost: { latencyMedianS: 1.5, latencyP95S: null, totalTokens: 10, costUsd: null } });
    const [record] = leaderboardRecords(CAPS, [e], opts);
    expect(Object.keys(record!)).toEqual(leaderboardCsvHeader(CAPS, opts));
    expect(record).toMatchObject({ rank: 1, id: 7, url: "https://board.example/submissions/7", api_chaining: 50, api_chaining_ci_low: 40, api_chaining_ci_high: 61, cost_usd: null, total_tokens: 10, latency_median_s: 1.5, latency_p95_s: null, models: ["m1"], badges: ["verified"] });
    // The CSV row of the same entry holds the same values, as text.
    const [, row] = parseCsv(leaderboardCsv(CAPS, [e], opts));
    expect(row).toEqual(Object.values(record!).map((v) => (v === null ? "" : Array.isArray(v) ? v.join("; ") : String(v))));
  });
});
