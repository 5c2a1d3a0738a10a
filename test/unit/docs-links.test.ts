/**
 * The README and docs/ lead somewhere real (issue 27, point 11): the README is a short first page
 * that opens with the two commands; every relative link (and its #anchor) in README.md and
 * docs/*.md reaches a file and a heading; every repository path they name exists; every
 * `npm run <script>` they name is a script in package.json. Docs go stale one rename at a time,
 * so this reads them as a newcomer would follow them.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const README_MAX_LINES = 250;

const read = (rel: string) => readFileSync(path.join(ROOT, rel), "utf8");
const pages = ["README.md", ...readdirSync(path.join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];

/** GitHub's heading anchor: lower-cased, punctuation but `-` and `_` dropped, spaces to `-`. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a markdown file's headings (outside code fences). */
function anchors(text: string): Set<string> {
  const out = new Set<string>();
  let fence = false;
  for (const line of text.split("\n")) {
    if (line.startsWith("```")) fence = !fence;
    const m = !fence && /^#{1,6} (.+)$/.exec(line);
    if (m) out.add(slug(m[1]!));
  }
  return out;
}

/** The text outside fenced code blocks, where markdown links are links. */
function prose(text: string): string {
  return text.split(/^```.*$/m).filter((_, i) => i % 2 === 0).join("\n");
}

/** Every problem with one page's links, paths and npm scripts, as "page: what" lines. */
function docProblems(rel: string, text: string, scripts: Record<string, string>): string[] {
  const problems: string[] = [];
  const dir = path.dirname(path.join(ROOT, rel));
  for (const m of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1]!;
    if (/^[a-z]+:/i.test(target)) continue; // http(s), mailto: not ours to check
    const [file, anchor] = target.split("#") as [string, string?];
    const abs = file === "" ? path.join(ROOT, rel) : path.resolve(dir, file);
    if (!existsSync(abs)) {
      problems.push(`${rel}: link to ${target}: no such file`);
      continue;
    }
    if (anchor !== undefined && abs.endsWith(".md") && !anchors(readFileSync(abs, "utf8")).has(anchor)) problems.push(`${rel}: link to ${target}: no heading with that anchor`);
  }
  // Repository paths named in the text (in backticks or not; a link's target was checked above).
  for (const m of text.matchAll(/(?<![\w./@-]|\]\()((?:lib|app|components|db|scripts|test|benchmarks|docs|\.github|\.ci)\/[\w./[\]-]*[\w\]/])/g)) {
    const named = m[1]!.replace(/\/$/, "");
    if (!existsSync(path.join(ROOT, named))) problems.push(`${rel}: names ${named}, which does not exist`);
  }
  for (const m of text.matchAll(/npm run ([\w:-]+)(\*?)/g)) {
    // `npm run bench:*` names a family: some script must start with it.
    const known = m[2] ? Object.keys(scripts).some((k) => k.startsWith(m[1]!)) : m[1]! in scripts;
    if (!known) problems.push(`${rel}: names \`npm run ${m[1]}\`, which package.json does not have`);
  }
  return problems;
}

describe("README and docs/", () => {
  const scripts = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts;

  it(`keeps the README a first page of at most ${README_MAX_LINES} lines`, () => {
    expect(read("README.md").split("\n").length).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it("opens the README with the two commands a new user runs, and .ci/run runs the second", () => {
    const lines = read("README.md").split("\n");
    expect(lines.slice(0, 3)).toEqual(["# Agentboard", "", "```sh"]);
    expect(lines[3]).toMatch(/^npm install && npm run start:demo(\s+#|$)/);
    expect(lines[4]).toMatch(/^npm install && npm test(\s+#|$)/);
    expect(lines[5]).toBe("```");
    expect(scripts["start:demo"]).toBeDefined();
    expect(scripts.test).toBeDefined();
    expect(read(".ci/run")).toMatch(/^npm test$/m);
  });

  it("has docs pages, and the README links every one of them", () => {
    const readme = read("README.md");
    const docs = pages.filter((p) => p.startsWith("docs/"));
    expect(docs.length).toBeGreaterThan(0);
    for (const p of docs) expect(readme, p).toContain(`](${p})`);
  });

  it("links only to files and headings that exist, names only paths that exist, and only npm scripts package.json has", () => {
    const problems = pages.flatMap((rel) => docProblems(rel, read(rel), scripts));
    expect(problems).toEqual([]);
  });

  it("catches a broken link, a missing anchor, a missing path and a missing script", () => {
    const bad = "[a](docs/nowhere.md) [b](docs/scoring.md#no-such-heading) `lib/nowhere/file.ts` `npm run no-such-script`";
    expect(docProblems("README.md", bad, scripts)).toEqual([
      "README.md: link to docs/nowhere.md: no such file",
      "README.md: link to docs/scoring.md#no-such-heading: no heading with that anchor",
      "README.md: names lib/nowhere/file.ts, which does not exist",
      "README.md: names `npm run no-such-script`, which package.json does not have",
    ]);
  });
});
