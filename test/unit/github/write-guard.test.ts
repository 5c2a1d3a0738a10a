/**
 * Every write to GitHub outside lib/github goes through the IssueWriter that `asSubmission`
 * (lib/submissions/github-intake.ts) hands out only for a submission issue: a comment, label or
 * reaction written any other way could reach an issue that is not a submission.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { rel, sourceFiles } from "../architecture/source-imports";

/** A port's write call; the writer's own methods (`….write.addLabels(`) are the guarded way. */
const WRITES = /(?<!\bwrite)\.(createComment|updateComment|addLabels|removeLabel|setLabels|addReaction|ensureLabel)\(/g;

describe("writes to GitHub", () => {
  it("are made only by the writer asSubmission hands out", () => {
    const found: string[] = [];
    for (const file of sourceFiles("lib", "scripts", "app")) {
      if (rel(file).startsWith("lib/github/")) continue;
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(WRITES)) {
        // Inside asSubmission's body, between its signature and the end of its returned writer.
        const start = text.indexOf("export async function asSubmission(");
        const end = start < 0 ? -1 : text.indexOf("\n}\n", start);
        const inGuard = rel(file) === "lib/submissions/github-intake.ts" && start >= 0 && m.index > start && m.index < end;
        if (!inGuard) found.push(`${rel(file)}: ${m[0]}`);
      }
    }
    expect(found).toEqual([]);
  });

  it("would notice one made elsewhere", () => {
    const text = "await ctx.gh.createComment(repo, 1, 'x'); await found.write.addLabels([l]); await gh.addLabels(repo, 1, [l]);";
    expect([...text.matchAll(WRITES)].map((m) => m[1])).toEqual(["createComment", "addLabels"]);
  });
});
