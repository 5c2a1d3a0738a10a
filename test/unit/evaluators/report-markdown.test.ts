import { describe, expect, it } from "vitest";
import { parseMarkdownReport } from "@/lib/formats/eval-report-markdown";

describe("markdown reports", () => {
  it("reads the title, sections, subsections and two-column tables as fields", () => {
    const md = [
      "# Incident Report: Near Miss",
      "",
      "## Incident Summary",
      "| Field | Value |",
      "|:---|---:|",
      "| Camera | cam-07 |",
      "| **Time** | 08:43 |",
      "",
      "### Vehicles",
      "| Kind | Count |",
      "|---|---|",
      "| forklift | 1 |",
      "",
      "## Analysis Results",
      "The worker stepped back.",
      "No contact.",
      "",
      "Alarm audible.",
    ].join("\n");
    expect(parseMarkdownReport(md)).toEqual({
      title: "Incident Report: Near Miss",
      "Incident Summary": { Camera: "cam-07", Time: "08:43", Vehicles: { forklift: "1" } },
      // Lines of a paragraph join with a space, paragraphs with a newline (never glued together).
      "Analysis Results": "The worker stepped back. No contact.\nAlarm audible.",
    });
  });

  it("skips a header row whatever its text, and keeps a headerless first row", () => {
    expect(parseMarkdownReport("## S\n| Name | Detail |\n|---|---|\n| a | 1 |")).toEqual({ S: { a: "1" } });
    expect(parseMarkdownReport("## S\n| a | 1 |\n| b | 2 |")).toEqual({ S: { a: "1", b: "2" } });
  });

  it("keeps the other cells of wider tables as a list, and escaped pipes as text", () => {
    expect(parseMarkdownReport("## S\n| k | v1 | v2 |\n|---|---|---|\n| a | 1 | 2 |\n| b | x \\| y | 3 |")).toEqual({ S: { a: ["1", "2"], b: ["x | y", "3"] } });
  });

  it("reads bold label lines as fields and puts prose beside fields under text", () => {
    expect(parseMarkdownReport("## Resources\n**Snapshot:** http://x/s.jpg\n- **Video**: http://x/v.mp4\nSee the attachments.")).toEqual({
      Resources: { Snapshot: "http://x/s.jpg", Video: "http://x/v.mp4", text: "See the attachments." },
    });
  });

  it("drops <img> tags, keeps fenced text verbatim, and numbers repeated keys", () => {
    const md = "## A\n<img src='a.png'>\nseen\n```\n## not a heading\n```\n## A\n| k | 1 |\n| k | 2 |";
    expect(parseMarkdownReport(md)).toEqual({ A: "seen ## not a heading", "A (2)": { k: "1", "k (2)": "2" } });
  });

  it("reads hostile long lines in linear time: a heading padded with spaces, a table rule of thousands of cells", () => {
    // With a backtracking heading pattern, the first line alone took minutes.
    const heading = `# Near miss${" ".repeat(100_000)}x ##`;
    expect(parseMarkdownReport(heading)).toEqual({ title: `Near miss${" ".repeat(100_000)}x` });
    const table = `## S\n| Field | Value |\n|${"--|".repeat(50_000)}\n| Camera | cam-07 |`;
    expect(parseMarkdownReport(table)).toEqual({ S: { Camera: "cam-07" } });
  });

  it("gives an empty section an empty string and an empty document an empty object", () => {
    expect(parseMarkdownReport("# T\n## Empty\n## Full\ntext")).toEqual({ title: "T", Empty: "", Full: "text" });
    expect(parseMarkdownReport("")).toEqual({});
    expect(parseMarkdownReport("   \n\n")).toEqual({});
  });
});
