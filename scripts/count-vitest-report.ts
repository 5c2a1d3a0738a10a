/**
 * Turns vitest's JSON report into the pass/fail counts of the closing line of `npm test`.
 * A test file that failed without a failing test (it did not load, threw at top level, or a
 * beforeAll hook failed and its tests were marked skipped) counts as one failure of its own.
 */

/** The part of vitest's JSON report (`--reporter=json`) that the count reads. */
export interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  testResults: { name: string; status: string; message?: string; assertionResults: { status: string }[] }[];
}

export interface TestCount {
  passed: number;
  failed: number;
  /** Files that failed with no failing test, each counted once in `failed`. */
  brokenFiles: string[];
}

export function countVitestReport(report: VitestReport): TestCount {
  const brokenFiles = report.testResults
    .filter((file) => file.status === "failed" && !file.assertionResults.some((test) => test.status === "failed"))
    .map((file) => file.name);
  return { passed: report.numPassedTests, failed: report.numFailedTests + brokenFiles.length, brokenFiles };
}
