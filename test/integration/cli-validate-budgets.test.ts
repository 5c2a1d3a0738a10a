/**
 * Issue 26, items 5 and 9 (empty trial), through the real CLI (`agentboard validate`): small
 * bundles whose every file is within its limits are bounded by the bundle's total work. The
 * error budget stops validation, the records of all trials are counted together, files of
 * domains the benchmark does not have are refused by name without being parsed, and an empty
 * `trial_N/` folder is an error rather than a trial fewer. Small versions of the bundles of
 * `npm run bench:hostile`, which times the full-size ones.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeTrialsOfEmptyRecords, writeUnknownDomainFiles } from "../helpers/hostile-shapes";
import { runCli } from "../helpers/run-cli";
import { writeZip, type ZipEntrySpec } from "../helpers/zip-writer";

const benchmark = "test/fixtures/mini-benchmark";
const good = "test/fixtures/mini-bundles/good/output";
const CAPS = ["capability_2_dashboard_apis", "capability_4_multiturn"];
const work = mkdtempSync(path.join(tmpdir(), "agentboard-budgets-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Report {
  valid: boolean;
  summary: { errors: number; records: number; trials: number };
  errors: { code: string; file: string; message: string }[];
  errorCounts: Record<string, number>;
  stopped?: string;
}

async function validateJson(bundle: string, env: Record<string, string> = {}) {
  const r = await runCli(["validate", bundle, "--benchmark", benchmark, "--json"], env);
  expect(r.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  return { code: r.code, report: JSON.parse(r.stdout) as Report };
}

/** 8 trials × 2 files × 6,000 `{}`: 96,000 errors were there to find; the default budget is 10,000. */
const trialsZip = path.join(work, "trials.zip");
writeTrialsOfEmptyRecords(trialsZip, { trials: 8, capabilities: CAPS, domains: ["harbor"], records: 6_000 });

describe("agentboard validate: the bundle's total work is bounded", () => {
  it("stops once the error budget is spent, and says so in the JSON and the markdown", async () => {
    const { code, report } = await validateJson(trialsZip);
    expect(code).toBe(1);
    // Two files read (6,000 errors each, the budget of 10,000 spent after the second), then the stop.
    expect(report.errorCounts).toEqual({ bad_uuid: 12_000, validation_stopped: 1 });
    expect(report.summary.errors).toBe(12_001);
    expect(report.summary.records).toBe(12_000);
    expect(report.stopped).toBe("validation stopped after 12,000 errors, the error budget being 10,000 (limits.maxErrors): 14 of 16 outputs files were not read, so there may be more errors");
    // Listed first (a reader shown a few errors learns the counts are a lower bound); trials
    // read in part are not compared: no trial_items_differ from the files not read.
    expect(report.errors[0]).toMatchObject({ code: "validation_stopped", file: "trials.zip", message: report.stopped });
    expect(report.errors[1]).toMatchObject({ code: "bad_uuid", file: "trial_1/capability_2_dashboard_apis/harbor.json" });

    const md = await runCli(["validate", trialsZip, "--benchmark", benchmark]);
    expect(md.code).toBe(1);
    expect(md.stdout).toContain("### Errors (12001 found before validation stopped)\n\n- `validation_stopped`");
    expect(md.stdout).toContain(`- … and 11951 more error(s); validation stopped after 12,000 errors, the error budget being 10,000 (limits.maxErrors): 14 of 16 outputs files were not read, so there may be more errors`);
  });

  it("takes the error budget from AGENTBOARD_VALIDATE_MAX_ERRORS", async () => {
    const { report } = await validateJson(trialsZip, { AGENTBOARD_VALIDATE_MAX_ERRORS: "100" });
    expect(report.errorCounts).toEqual({ bad_uuid: 6_000, validation_stopped: 1 });
    expect(report.stopped).toMatch(/^validation stopped after 6,000 errors, the error budget being 100 \(limits\.maxErrors\): 15 of 16 outputs files/);
  });

  it("counts records across all trials: AGENTBOARD_VALIDATE_MAX_RECORDS refuses a valid bundle past it", async () => {
    // Three trials of the good bundle (2 + 2 records each): valid as it is.
    const dir = path.join(work, "three-trials");
    for (const t of [1, 2, 3]) cpSync(good, path.join(dir, `trial_${t}`), { recursive: true, filter: (src) => !src.endsWith("metadata.json") });
    expect((await validateJson(dir)).report).toMatchObject({ valid: true, summary: { records: 12, trials: 3 } });

    const { code, report } = await validateJson(dir, { AGENTBOARD_VALIDATE_MAX_RECORDS: "5" });
    expect(code).toBe(1);
    expect(report.errorCounts).toEqual({ too_many_records_in_bundle: 1, validation_stopped: 1 });
    expect(report.errors.map((e) => e.code)).toEqual(["validation_stopped", "too_many_records_in_bundle"]);
    expect(report.errors[1]).toMatchObject({
      code: "too_many_records_in_bundle",
      file: "trial_2/capability_2_dashboard_apis/harbor.json",
      message: "with this file the bundle's outputs files hold 6 records; at most 5 are read in all files of all trials together (limits.maxRecords)",
    });
    expect(report.stopped).toBe("validation stopped after the bundle's records passed 5 (limits.maxRecords): 3 of 6 outputs files were not read, so there may be more errors");
  });

  it("refuses a wrong budget setting at start-up, naming it (exit 2)", async () => {
    for (const [name, value] of [["AGENTBOARD_VALIDATE_MAX_ERRORS", "ten"], ["AGENTBOARD_VALIDATE_MAX_RECORDS", "0"], ["AGENTBOARD_VALIDATE_MAX_RECORDS", "1e6"]] as const) {
      const r = await runCli(["validate", trialsZip, "--benchmark", benchmark, "--json"], { [name]: value });
      expect(r.code, `${name}=${value}`).toBe(2);
      expect(r.stderr).toContain(`${name} must be a whole number of 1 or more`);
      expect(r.stdout).toBe("");
    }
  });

  it("stops as early with worker threads (a bundle of 24 MiB or more is checked on them)", async () => {
    // 32 trials × 2 files of 99,999 `{}` padded to ~800 KB each: ~51 MB, past the threads' threshold.
    const dir = path.join(work, "threaded");
    const padded = `[${Array(99_999).fill("{}     ").join(",")}]`;
    for (let t = 1; t <= 32; t++) {
      for (const cap of CAPS) {
        mkdirSync(path.join(dir, `trial_${t}`, cap), { recursive: true });
        writeFileSync(path.join(dir, `trial_${t}`, cap, "harbor.json"), padded);
      }
    }
    const { report } = await validateJson(dir, { AGENTBOARD_THREADS: "2" });
    expect(report.errorCounts).toEqual({ bad_uuid: 99_999, validation_stopped: 1 });
    expect(report.stopped).toMatch(/: 63 of 64 outputs files were not read/);
  });

  it("refuses files of unknown domains by their name, never parsing them", async () => {
    const zip = path.join(work, "unknown.zip");
    // 40 unknown-domain files of 2,000 `{}`, one of malformed JSON, one of a JSON too deep to parse.
    const extra: ZipEntrySpec[] = [
      { name: `${CAPS[0]}/malformed.json`, data: "[{" },
      { name: `${CAPS[1]}/deep.json`, data: `${"[".repeat(100_000)}${"]".repeat(100_000)}` },
    ];
    writeUnknownDomainFiles(zip, { capabilities: CAPS, files: 40, records: 2_000, extra });
    const { code, report } = await validateJson(zip);
    expect(code).toBe(1);
    expect(report.errorCounts).toEqual({ unknown_domain: 42 });
    expect(report.summary.records).toBe(0);
    expect(report.errors.find((e) => e.file === `${CAPS[0]}/malformed.json`)).toMatchObject({ code: "unknown_domain", message: expect.stringContaining('domain "malformed" has no ground truth in capability_2_dashboard_apis; expected one of harbor') });
    expect(report.errors.filter((e) => e.file === `${CAPS[1]}/deep.json`).map((e) => e.code)).toEqual(["unknown_domain"]);
  });
});

describe("agentboard validate: an empty trial folder", () => {
  const trialOne = (prefix: string): ZipEntrySpec[] =>
    CAPS.map((cap) => ({ name: `${prefix}trial_1/${cap}/harbor.json`, data: readFileSync(path.join(good, cap, "harbor.json")) }));

  it("is an error empty_trial in a ZIP (a directory entry, no file), not a trial fewer", async () => {
    const zip = path.join(work, "empty-trial.zip");
    writeZip(zip, [...trialOne(""), { name: "trial_2/", directory: true }]);
    const { code, report } = await validateJson(zip);
    expect(code).toBe(1);
    expect(report.summary.trials).toBe(2);
    expect(report.errorCounts).toEqual({ empty_trial: 1 });
    expect(report.errors[0]).toMatchObject({ code: "empty_trial", file: "trial_2" });
  });

  it("is an error inside a wrapper folder too, and with only empty folders inside the trial", async () => {
    const zip = path.join(work, "wrapped-empty-trial.zip");
    writeZip(zip, [{ name: "run/", directory: true }, ...trialOne("run/"), { name: "run/trial_2/", directory: true }, { name: "run/trial_2/capability_4_multiturn/", directory: true }]);
    const { report } = await validateJson(zip);
    expect(report.errorCounts).toEqual({ empty_trial: 1 });
    expect(report.errors[0]).toMatchObject({ code: "empty_trial", file: "run/trial_2" });
  });

  it("is an error in a folder bundle", async () => {
    const dir = path.join(work, "empty-trial-folder");
    cpSync(good, path.join(dir, "trial_1"), { recursive: true, filter: (src) => !src.endsWith("metadata.json") });
    mkdirSync(path.join(dir, "trial_2"));
    const { code, report } = await validateJson(dir);
    expect(code).toBe(1);
    expect(report.errorCounts).toEqual({ empty_trial: 1 });
    expect(report.errors[0]).toMatchObject({ code: "empty_trial", file: "trial_2" });
  });
});
