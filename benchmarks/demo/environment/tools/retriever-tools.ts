/** Capability 4 retriever tools: BM25 search over one document collection each. */
import { z } from "zod";
import { documentCollections, type Collection } from "../documents";
import { rankDocuments } from "../rank-documents";
import { defineTool, type ToolSpec } from "./tool-spec";

const TOPICS: Record<Collection, string> = {
  harbor: "the harbor: berths, ships, operators, fees and port rules",
  library: "the library: books, authors, members, loans and library rules",
  velodrome: "the cycling series: teams, riders, races and race rules",
  travel: "travel and hospitality: hotels, ferries, flights and trip planning",
};

export function retrieverTool(collection: Collection): ToolSpec {
  return defineTool({
    name: `query_${collection}`,
    description: `Search documents about ${TOPICS[collection]}. Returns {results: [{id, title, text, score}]}, best match first.`,
    input: {
      question: z.string().describe("What to look for, in natural language."),
      n_results: z.number().int().min(1).optional().describe("Number of documents to return; default 3."),
    },
    run: (_ctx, { question, n_results }) => ({ results: rankDocuments(documentCollections()[collection], question, n_results ?? 3) }),
  });
}
