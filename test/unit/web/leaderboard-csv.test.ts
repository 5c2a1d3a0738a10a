/** The leaderboard CSV: header, RFC 4180 quoting, formula-injection protection, missing capabilities. */
import { describe, expect, it } from "vitest";
import { badgeNames, csvCell, defuseFormulas, leaderboardCsv, leaderboardCsvHeader } from "@/lib/queries/leaderboard-csv";
import type { LeaderboardEntry } from "@/lib/queries/types";

const CAPS = [{ id: "api_chaining" }, { id: "multihop" }];

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
    badges: { verified: true, partial: false, demo: false },
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
  it("starts with the header row: fixed columns around one column per capability", () => {
    expect(leaderboardCsvHeader(CAPS)).toEqual([
      "rank",
      "agent",
      "models",
      "maintainer",
      "overall",
      "overall_ci_low",
      "overall_ci_high",
      "api_chaining",
      "multihop",
      "coverage",
      "date",
      "badges",
    ]);
    expect(leaderboardCsv(CAPS, [])).toBe(
      "rank,agent,models,maintainer,overall,overall_ci_low,overall_ci_high,api_chaining,multihop,coverage,date,badges\r\n",
    );
  });

  it("writes one CRLF-terminated row per entry, in the order given, with rounded numbers", () => {
    const csv = leaderboardCsv(CAPS, [entry({ id: 2, rank: 3, agent: "b" }), entry({ id: 1, rank: 1, agent: "a", models: ["m1", "m2"] })]);
    const lines = csv.split("\r\n");
    expect(lines).toHaveLength(4);
    expect(lines[3]).toBe("");
    expect(lines[1]).toBe("3,b,m1,Lab,85.22,81.15,89.11,90.67,81.33,0.9467,2026-11-22T04:59:54.921Z,verified");
    expect(lines[2]).toBe("1,a,m1; m2,Lab,85.22,81.15,89.11,90.67,81.33,0.9467,2026-11-22T04:59:54.921Z,verified");
  });

  it("leaves a capability that was not submitted (or is absent) empty, and lists every badge", () => {
    const e = entry({
      capabilities: { api_chaining: { score: 0, ciLow: 0, ciHigh: 0, submitted: false } },
      badges: { verified: false, partial: true, demo: true },
    });
    const [, row] = parseCsv(leaderboardCsv(CAPS, [e]));
    expect(row!.slice(7, 9)).toEqual(["", ""]);
    expect(row![11]).toBe("partial; demo");
  });

  it("round-trips hostile user-supplied text through a CSV reader, with formulas defused", () => {
    const e = entry({ agent: '=cmd|" /C calc"!A0', models: ["a,b", "+x"], maintainer: "line\r\nbreak" });
    const rows = parseCsv(leaderboardCsv(CAPS, [e]));
    expect(rows).toHaveLength(2);
    expect(rows[1]![1]).toBe(`'=cmd|" /C calc"!A0`);
    expect(rows[1]![2]).toBe("a,b; '+x"); // the second model could start a cell in a ";" locale
    expect(rows[1]![3]).toBe("line\r\nbreak");
    expect(rows[1]).toHaveLength(12);
  });

  it("names badges in a fixed order", () => {
    expect(badgeNames({ verified: true, partial: false, demo: true })).toEqual(["verified", "demo"]);
    expect(badgeNames({ demo: true, partial: true, verified: true })).toEqual(["verified", "partial", "demo"]);
    expect(badgeNames({ verified: false, partial: false, demo: false })).toEqual([]);
  });
});
