/** The closing count of `npm test`: a test file that failed with no failing test is one failure. */
import { describe, expect, it } from "vitest";
import { countVitestReport, type VitestReport } from "../../scripts/count-vitest-report";

type FileResult = VitestReport["testResults"][number];

function file(name: string, status: string, tests: string[]): FileResult {
  return { name, status, assertionResults: tests.map((s) => ({ status: s })) };
}

function report(files: FileResult[]): VitestReport {
  const all = files.flatMap((f) => f.assertionResults);
  return {
    numPassedTests: all.filter((t) => t.status === "passed").length,
    numFailedTests: all.filter((t) => t.status === "failed").length,
    testResults: files,
  };
}

describe("countVitestReport", () => {
  it("counts passing and failing tests as vitest reports them", () => {
    const r = report([file("/r/a.test.ts", "passed", ["passed", "passed"]), file("/r/b.test.ts", "failed", ["passed", "failed", "failed"])]);
    expect(countVitestReport(r)).toEqual({ passed: 3, failed: 2, brokenFiles: [] });
  });

  it("counts each file that failed to load as one failure, even beside failing tests", () => {
    const r = report([
      file("/r/ok.test.ts", "passed", ["passed"]),
      file("/r/red.test.ts", "failed", ["failed", "passed"]),
      file("/r/missing-import.test.ts", "failed", []),
      file("/r/top-level-throw.test.ts", "failed", []),
    ]);
    expect(countVitestReport(r)).toEqual({ passed: 2, failed: 3, brokenFiles: ["/r/missing-import.test.ts", "/r/top-level-throw.test.ts"] });
  });

  it("counts a file whose beforeAll failed (its tests reported skipped) as one failure", () => {
    const r = report([file("/r/hook.test.ts", "failed", ["skipped", "skipped", "skipped"])]);
    expect(countVitestReport(r)).toEqual({ passed: 0, failed: 1, brokenFiles: ["/r/hook.test.ts"] });
  });

  it("does not count skipped tests of a passing file", () => {
    const r = report([file("/r/a.test.ts", "passed", ["passed", "skipped"])]);
    expect(countVitestReport(r)).toEqual({ passed: 1, failed: 0, brokenFiles: [] });
  });
});
