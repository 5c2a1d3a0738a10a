/** The domain grid's cells open the items that lost points there, and say how many; a cell where none did is no link. */
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { DomainHeatmap } from "@/components/submission/domain-heatmap";
import type { SubmissionDetail } from "@/lib/queries/types";

const cap = (id: string, label: string): SubmissionDetail["capabilities"][number] => ({ id, label, scorer: "waterfall", score: 50, ciLow: 40, ciHigh: 60, submitted: true, nItems: 4, nMissing: 0, nError: 0, nPolicyUnchecked: 0, statusCounts: {} });

describe("DomainHeatmap", () => {
  it("links a cell with lost points to that capability and domain's items, with the count", () => {
    const html = renderToStaticMarkup(
      createElement(DomainHeatmap, {
        capabilities: [cap("api_chaining", "API chaining")],
        domains: [
          { capability: "api_chaining", domain: "harbor", score: 50, nItems: 2 },
          { capability: "api_chaining", domain: "library", score: 100, nItems: 2 },
        ],
        lost: [{ capability: "api_chaining", domain: "harbor", n: 1 }],
        base: "/submissions/7",
      }),
    );
    const links = [...html.matchAll(/<a href="([^"]+)"[^>]*title="([^"]+)"[^>]*>(.*?)<\/a>/g)];
    expect(links.map((m) => [m[1], m[2]])).toEqual([["/submissions/7?capability=api_chaining&amp;domain=harbor#items", "API chaining · harbor: 1 item lost points"]]);
    expect(links[0]![3]).toContain("1 lost");
    // The cell where every item kept its points is no link.
    expect(html).toContain("100.0");
    expect(html.match(/data-lost-cell/g)).toHaveLength(1);
  });
});
