/**
 * Reading values out of answers and evidence, for the deterministic `rules` judge:
 * numbers with their precision, text normalised for matching, and the atoms of a
 * structured answer.
 */
import type { AnswerValue } from "../formats/dialogue";
import { JsonNumber } from "../formats/lossless-json";

export type Atom = string | number | boolean;

export interface NumberToken {
  value: number;
  /** Digits after the decimal point as written: the precision the writer claims. */
  decimals: number;
}

/**
 * The values an answer asserts. VAKRA answers are result rows (`[["Blue Heron", 6]]`) whose
 * first column is the answer, so a list of lists contributes the first cell of each row,
 * as VAKRA's own flattening does; a flat list contributes every element.
 */
export function answerAtoms(answer: AnswerValue): Atom[] {
  if (answer === null) return [];
  if (answer instanceof JsonNumber) return [answer.valueOf()];
  if (!Array.isArray(answer)) return typeof answer === "string" && answer.trim() === "" ? [] : [answer];
  const out: Atom[] = [];
  for (const item of answer) {
    if (Array.isArray(item)) {
      if (item.length === 0) continue;
      out.push(...answerAtoms(item[0] as AnswerValue));
    } else if (item !== null) out.push(item instanceof JsonNumber ? item.valueOf() : item);
  }
  return out;
}

/** The answer as one line of text, as a person (or a judge model) reads it. */
export function answerText(answer: AnswerValue): string {
  if (answer === null) return "";
  if (!Array.isArray(answer)) return String(answer);
  return answerAtoms(answer).map(String).join(", ");
}

const NUMBER = /(?<![\w.])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w])|(?<![\w.])-?\.\d+(?![\w])/g;

export function extractNumbers(text: string): NumberToken[] {
  const out: NumberToken[] = [];
  for (const m of text.matchAll(NUMBER)) {
    const token = parseNumber(m[0].replace(/\.$/, ""));
    if (token) out.push(token);
  }
  return out;
}

export function parseNumber(raw: string): NumberToken | undefined {
  const s = raw.trim().replace(/,(?=\d{3}\b)/g, "");
  if (!/^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(s)) return undefined;
  const value = Number(s);
  if (!Number.isFinite(value)) return undefined;
  const exp = /[eE]/.test(s);
  const dot = s.indexOf(".");
  const decimals = exp || dot < 0 ? 0 : s.length - dot - 1;
  return { value, decimals };
}

export function numberToken(n: number): NumberToken {
  return parseNumber(String(n)) ?? { value: n, decimals: 0 };
}

/**
 * Equal at the reference's precision. A more precise prediction must round to the
 * reference; a rounded prediction is accepted when it keeps at least two decimals (or all
 * of the reference's, if it has fewer) and the reference rounds to it. Compared as distances
 * with a relative epsilon, since binary floats cannot round 1.005 to 1.01 exactly.
 */
export function numbersMatch(pred: NumberToken, ref: NumberToken): boolean {
  const eps = 1e-9 * Math.max(1, Math.abs(ref.value));
  const distance = Math.abs(pred.value - ref.value);
  if (pred.decimals === ref.decimals) return distance <= eps;
  if (pred.decimals > ref.decimals) return distance <= 0.5 * 10 ** -ref.decimals + eps;
  if (pred.decimals < Math.min(ref.decimals, 2)) return false;
  return distance <= 0.5 * 10 ** -pred.decimals + eps;
}

/** Lower case, accents and punctuation removed, whitespace collapsed, padded for word search. */
export function normaliseText(s: string): string {
  const t = s
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}.%-]+/gu, " ")
    .replace(/(?<!\d)\.|\.(?!\d)/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return ` ${t} `;
}

/** Whole-word containment of `needle` in already-normalised `haystack`. */
export function containsPhrase(haystackNorm: string, needle: string): boolean {
  const n = normaliseText(needle);
  return n.trim() !== "" && haystackNorm.includes(n);
}

/** An atom as a number when it is one (or a numeric string such as "7"). */
export function atomNumber(atom: Atom): NumberToken | undefined {
  if (typeof atom === "number") return numberToken(atom);
  if (typeof atom === "string") return parseNumber(atom);
  return undefined;
}

const REFUSAL = new RegExp(
  [
    String.raw`\bi (?:do not|don't|cannot|can't|can not|am unable to) (?:know|answer|find|determine|tell|provide)`,
    String.raw`\bunable to (?:answer|determine|find|provide)`,
    String.raw`\bno (?:information|data|results?) (?:is |are |was |were )?(?:available|found)`,
    String.raw`\b(?:cannot|can't|could not|couldn't) be (?:determined|answered|found)`,
    String.raw`\binsufficient (?:information|data)`,
  ].join("|"),
  "i",
);

export function isRefusal(text: string): boolean {
  return REFUSAL.test(text);
}

const LEAD_WORDS = new Set(
  "the a an it its this that these those there here about approximately around roughly yes no in on at for of and or but so answer result total based according i we my our you he she they note however therefore thus also".split(" "),
);

/**
 * Named values a text answer asserts: runs of capitalised words ("Pommeau Noir",
 * "Clos des Pommiers") and quoted strings. Sentence-initial function words are dropped.
 */
export function namedValues(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/["“]([^"”\n]{2,80})["”]/g)) out.add(m[1]!.trim());
  // Single quotes count only around a phrase, not as apostrophes inside words ("isn't").
  for (const m of text.matchAll(/(?<![\p{L}\p{N}])['‘]([^'’\n]{2,80})['’](?![\p{L}\p{N}])/gu)) out.add(m[1]!.trim());
  const CAP = String.raw`\p{Lu}[\p{L}\p{N}'&-]*`;
  const run = new RegExp(String.raw`${CAP}(?:\s+(?:(?:of|de|des|du|la|le|von|van|and|&)\s+)?${CAP})*`, "gu");
  for (const m of text.matchAll(run)) {
    const words = m[0].split(/\s+/);
    while (words.length && LEAD_WORDS.has(words[0]!.toLowerCase())) words.shift();
    if (words.length) out.add(words.join(" "));
  }
  return [...out];
}
