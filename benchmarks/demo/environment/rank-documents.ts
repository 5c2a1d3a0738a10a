/** BM25 ranking (k1 = 1.2, b = 0.75) over lower-cased word tokens of title + text. */
import { round4 } from "./prng";

export type Document = { id: string; title: string; text: string };
export type RankedDocument = Document & { score: number };

const K1 = 1.2;
const B = 0.75;

export function tokenize(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * The best `n` documents with a positive score, best first; equal scores are ordered by id
 * so the ranking never depends on the collection's order.
 */
export function rankDocuments(collection: readonly Document[], question: string, n: number): RankedDocument[] {
  const docs = collection.map((doc) => {
    const tokens = tokenize(`${doc.title} ${doc.text}`);
    const tf = new Map<string, number>();
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
    return { doc, tf, length: tokens.length };
  });
  if (docs.length === 0) return [];
  const avgLength = docs.reduce((sum, d) => sum + d.length, 0) / docs.length;
  const terms = [...new Set(tokenize(question))];
  const idf = new Map(
    terms.map((t) => {
      const df = docs.filter((d) => d.tf.has(t)).length;
      // The "+1" form keeps idf positive even for terms in most documents.
      return [t, Math.log(1 + (docs.length - df + 0.5) / (df + 0.5))];
    }),
  );
  return docs
    .map(({ doc, tf, length }) => {
      let score = 0;
      for (const t of terms) {
        const f = tf.get(t) ?? 0;
        if (f > 0) score += idf.get(t)! * ((f * (K1 + 1)) / (f + K1 * (1 - B + (B * length) / avgLength)));
      }
      // Rounded before sorting so equal printed scores are always ordered by id.
      return { ...doc, score: round4(score) };
    })
    .filter((d) => d.score > 0)
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, Math.max(0, n));
}
