/**
 * `benchmark init --from-vakra <dir> [--out <dir>]`: writes the benchmark.yaml a folder of
 * VAKRA's data describes (vakra-import.ts), for `validate` and `score` to use unchanged.
 * Without --out it is written into <dir>, beside VAKRA's files; with --out the new folder
 * stands alone: the ground truth and inputs are copied into Agentboard's layout
 * (groundtruth/<capability_dir>/<domain>.json, input/…). Nothing is overwritten. The folder
 * written is loaded back before the command says it is done. Exit 0 written, 2 refused.
 */
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { stringify } from "yaml";
import { BenchmarkError, loadBenchmark } from "../../lib/benchmark/load-benchmark";
import { importVakra, type VakraImport } from "../../lib/benchmark/vakra-import";
import { usageError } from "./cli-errors";
import { benchmarkOrFail } from "./load";

export interface BenchmarkInitFlags {
  fromVakra: string;
  out?: string;
}

const LAYOUT_NAMES = { "vakra-data": "VAKRA's data layout (<capability_dir>/input/ with output/ or groundtruth/)", "vakra-sample": "VAKRA's sample_data layout (<capability_dir>/input.json + output.json)", agentboard: "Agentboard's layout" } as const;

export async function benchmarkInitCommand(flags: BenchmarkInitFlags): Promise<number> {
  const from = flags.fromVakra;
  const out = flags.out ?? from;
  const standalone = path.resolve(out) !== path.resolve(from);
  const yamlFile = path.join(out, "benchmark.yaml");
  if (existsSync(yamlFile)) throw usageError(`${yamlFile} exists already; nothing was written (remove it, or choose another --out)`);
  for (const dir of ["groundtruth", "input"]) {
    if (standalone && existsSync(path.join(out, dir))) throw usageError(`${path.join(out, dir)} exists already; nothing was written (--out must be a new or empty folder)`);
  }
  const plan = await importVakra(from).catch((err: unknown) => {
    if (!(err instanceof BenchmarkError)) throw err;
    throw usageError(`nothing was written: ${from} cannot be read as VAKRA's data:\n  ${err.problems.slice(0, 20).join("\n  ")}`);
  });

  if (standalone) {
    for (const c of plan.copies) {
      const to = path.join(out, c.to);
      mkdirSync(path.dirname(to), { recursive: true });
      copyFileSync(c.from, to);
    }
  }
  mkdirSync(out, { recursive: true });
  writeFileSync(yamlFile, benchmarkYaml(plan, from));
  // What validate and score will read: the folder as written, loaded back.
  const loaded = await benchmarkOrFail(() => loadBenchmark(out));
  process.stdout.write(summary(plan, { from, out, standalone, items: loaded.capabilities.reduce((n, c) => n + c.byUuid.size, 0) }));
  return 0;
}

/** The YAML text: what was inferred, then the policy texts left without a rule, as comments. */
function benchmarkYaml(plan: VakraImport, from: string): string {
  const oneLine = (s: string) => s.replace(/[\r\n]+/g, " ");
  const head = [
    `# Written by \`agentboard benchmark init --from-vakra ${oneLine(from)}\` from ${LAYOUT_NAMES[plan.layout]}.`,
    "# Capabilities, labels and weights are VAKRA's: capability 4 carries tool-use policies and its",
    "# multi-source items (the scored turn uses an API tool and a retriever) count double.",
    "# Policy rules: for each additional_instructions text, the retrievers its ground truth only ever",
    '# calls with the query "NONE" (a lookup the policy blocks) are denied.',
    "# Not inferred: slug, title and version (edit them), and tool servers: add capabilities[].environment",
    "# to replay calls against VAKRA's MCP servers; until then scoring uses the bundle's own tool responses.",
  ];
  const tail = plan.unchecked.length
    ? [
        "",
        "# additional_instructions texts without a rule (their dialogues are scored policy_unchecked):",
        ...plan.unchecked.flatMap((u) => [`#   - text: ${JSON.stringify(oneLine(u.text))}`, `#     (${u.dialogues} dialogue(s); ${oneLine(u.why)})`]),
      ]
    : [];
  return `${head.join("\n")}\n${stringify(plan.spec, { lineWidth: 0 })}${tail.length ? `${tail.join("\n")}\n` : ""}`;
}

function summary(plan: VakraImport, at: { from: string; out: string; standalone: boolean; items: number }): string {
  const lines = [`Wrote ${path.join(at.out, "benchmark.yaml")} from ${LAYOUT_NAMES[plan.layout]} in ${at.from}.`];
  if (at.standalone) lines.push(`Copied ${plan.copies.length} file(s) into ${path.join(at.out, "groundtruth")}/ and ${path.join(at.out, "input")}/ (Agentboard's layout).`);
  lines.push("");
  for (const c of plan.capabilities) {
    const weights = c.weight !== 1 ? `, ${c.multiSource} multi-source (weight ${c.weight})` : "";
    lines.push(`  ${c.label} (${c.id}) · ${c.directory} · ${c.domains} domain(s), ${c.dialogues} dialogue(s)${weights}`);
  }
  const texts = plan.rules.length + plan.unchecked.length;
  lines.push("", `Policies: ${texts} additional_instructions text(s): ${plan.rules.length} rule(s) inferred, ${plan.unchecked.length} left unchecked${plan.unchecked.length ? " (listed at the end of benchmark.yaml)" : ""}.`);
  for (const r of plan.rules) lines.push(`  deny ${r.rule.denyTools!.join(", ")} · ${r.dialogues} dialogue(s) · "${preview(r.rule.text)}"`);
  for (const n of plan.notes) lines.push(`Note: ${n}`);
  lines.push(
    "Not inferred: slug, title, version (vakra, VAKRA, 1: edit them); tool servers (scoring replays the bundle's own tool responses until capabilities[].environment is declared).",
    "",
    `Loaded back: ${at.items} ground-truth item(s). Next: ./agentboard validate <bundle> --benchmark ${at.out}`,
  );
  return lines.join("\n") + "\n";
}

const preview = (s: string) => (s.length > 90 ? `${s.slice(0, 89)}…` : s);
