/**
 * Question templates for the demo benchmark, generic over a domain's schema, so every
 * domain gets the same kinds of questions about its own tables. Each template yields the
 * ground-truth plan and a plausible wrong plan (a near-miss tool or argument) that the
 * sample agents use when they get a question wrong. The words come from wording.ts; the random
 * draws here decide which questions exist and must not change with the wording.
 */
import Database from "better-sqlite3";
import { SCHEMAS, nameColumn, type Column, type Domain, type TableSchema } from "../../benchmarks/demo/environment/domains";
import { cell, field, firstRow, handleOf, last, rowCount, type Plan } from "./plan";
import { averageReply, categoryReply, countReply, documentReply, entityReply, mostCommonReply, nameReply, returnedReply, Wording } from "./wording";

export interface Question {
  gt: Plan;
  wrong: Plan;
  /** Ways to answer this question with value `v` (whatever plan found it), as a person would write them. */
  reply: (v: string) => string[];
}

type Rng = () => number;
const pick = <T>(rng: Rng, xs: readonly T[]): T => {
  if (xs.length === 0) throw new Error("nothing to pick from");
  return xs[Math.floor(rng() * xs.length)]!;
};
const other = <T>(rng: Rng, xs: readonly T[], not: T): T => pick(rng, xs.filter((x) => x !== not).length ? xs.filter((x) => x !== not) : xs);
/** Table name to a singular word, for retriever arguments only (questions take their words from wording.ts). */
const singular = (t: string) => t.replace(/ies$/, "y").replace(/s$/, "");

export class DomainFacts {
  readonly tables: TableSchema[];
  readonly words: Wording;
  constructor(
    readonly domain: Domain,
    private readonly db: Database.Database,
  ) {
    this.tables = SCHEMAS[domain];
    this.words = new Wording(domain);
  }
  static open(domain: Domain, file: string) {
    return new DomainFacts(domain, new Database(file, { readonly: true, fileMustExist: true }));
  }
  close() {
    this.db.close();
  }
  cols(t: TableSchema, role: Column["role"]) {
    return t.columns.filter((c) => c.role === role);
  }
  values(t: TableSchema, c: Column): string[] {
    return (this.db.prepare(`SELECT DISTINCT "${c.name}" AS v FROM "${t.name}" ORDER BY v`).all() as { v: unknown }[]).map((r) => String(r.v));
  }
  names(t: TableSchema): string[] {
    const n = nameColumn(t);
    return n ? (this.db.prepare(`SELECT "${n.name}" AS v FROM "${t.name}" ORDER BY id`).all() as { v: string }[]).map((r) => r.v) : [];
  }
  median(t: TableSchema, c: Column): number {
    const rows = this.db.prepare(`SELECT "${c.name}" AS v FROM "${t.name}" ORDER BY v`).all() as { v: number }[];
    return rows[Math.floor(rows.length / 2)]!.v;
  }
  /** Tables with a lookup name, a category and a measure: the richest to ask about. */
  get rich() {
    return this.tables.filter((t) => nameColumn(t) && this.cols(t, "category").length && this.cols(t, "measure").length);
  }
  get named() {
    return this.tables.filter((t) => nameColumn(t) && this.cols(t, "measure").length);
  }
  /** Tables holding a reference to a named table, with a measure to rank by. */
  get referring() {
    return this.tables.flatMap((t) =>
      this.cols(t, "reference")
        .map((ref) => ({ t, ref, target: this.tables.find((x) => x.name === ref.references)! }))
        .filter((x) => nameColumn(x.target) && this.cols(t, "measure").length),
    );
  }
}

const categoryValue = (v: string, c: Column) => (c.type === "integer" ? Number(v) : v);

/** Capability 1: chains of data tools over server-side handles (after the get_data prelude). */
export function dataChainQuestion(f: DomainFacts, rng: Rng, kind: number): Question & { table: string } {
  const t = pick(rng, f.rich);
  const name = nameColumn(t)!.name;
  const cat = pick(rng, f.cols(t, "category"));
  const m = pick(rng, f.cols(t, "measure"));
  const values = f.values(t, cat);
  const v = pick(rng, values);
  const label = (prev: unknown[]) => handleOf(last(prev));
  const filter = (value: string, operator = "equals") => ({ name: "filter_data", args: (p: unknown[]) => ({ data_label: label(p), key_name: cat.name, operator, value: categoryValue(value, cat) }) });
  const count = { name: "count_data", args: (p: unknown[]) => ({ data_label: label(p) }) };
  const topName = (ascending: boolean) => [
    { name: "sort_data", args: (p: unknown[]) => ({ data_label: label(p), key_name: m.name, ascending }) },
    { name: "select_top", args: (p: unknown[]) => ({ data_label: label(p), n: 1 }) },
    { name: "retrieve_column", args: (p: unknown[]) => ({ data_label: label(p), key_name: name }) },
  ];
  const countAnswer = (r: unknown[]) => cell(field(last(r), "count"));
  const firstValue = (r: unknown[]) => cell((last(r) as unknown[] | undefined)?.[0] as string | undefined);
  const table = t.name;
  const w = f.words;
  const noun = w.noun(t);
  const mw = w.measure(t, m);
  const cw = w.category(t, cat);
  const those = `the ${w.having(t, cat, v)}`;
  switch (kind % 6) {
    case 0:
      return {
        table,
        gt: { query: w.howMany(t, cat, v), steps: [filter(v), count], answer: countAnswer },
        wrong: { query: "", steps: [filter(other(rng, values, v)), count], answer: countAnswer },
        reply: (x) => countReply(x, noun, true),
      };
    case 1:
      return {
        table,
        gt: { query: `Which ${noun.one} ${mw.most}?`, steps: topName(false), answer: firstValue },
        wrong: { query: "", steps: topName(true), answer: firstValue },
        reply: (x) => entityReply(x, w.extreme(t, m, true), mw.most),
      };
    case 2: {
      const agg = (operation: string) => ({ name: "aggregate_data", args: (p: unknown[]) => ({ data_label: label(p), key_name: m.name, operation }) });
      const valueAnswer = (r: unknown[]) => cell(field(last(r), "value"));
      return {
        table,
        gt: { query: `What is the average ${mw.noun} of ${those}?`, steps: [filter(v), agg("mean")], answer: valueAnswer },
        wrong: { query: "", steps: [filter(v), agg("max")], answer: valueAnswer },
        reply: (x) => averageReply(x, mw.noun, `those ${noun.many}`),
      };
    }
    case 3: {
      const threshold = f.median(t, m);
      const cmp = (operator: string) => ({ name: "filter_data", args: (p: unknown[]) => ({ data_label: label(p), key_name: m.name, operator, value: threshold }) });
      return {
        table,
        gt: { query: `How many ${noun.many} ${mw.above(threshold)}?`, steps: [cmp("greater_than"), count], answer: countAnswer },
        wrong: { query: "", steps: [cmp("less_than"), count], answer: countAnswer },
        reply: (x) => countReply(x, noun, true),
      };
    }
    case 4: {
      const group = (c: Column) => ({ name: "group_count", args: (p: unknown[]) => ({ data_label: label(p), key_name: c.name }) });
      const top = (r: unknown[]) => cell(((last(r) as unknown[][] | undefined)?.[0]?.[0] as string | undefined) ?? undefined);
      return {
        table,
        gt: { query: cw.mostCommon, steps: [group(cat)], answer: top },
        wrong: { query: "", steps: [group(nameColumn(t)!)], answer: top },
        reply: (x) => mostCommonReply(x, cw, noun),
      };
    }
    default: {
      const steps = (ascending: boolean) => [filter(v), ...topName(ascending)];
      return {
        table,
        gt: { query: `Among ${those}, which one ${mw.least}?`, steps: steps(true), answer: firstValue },
        wrong: { query: "", steps: steps(false), answer: firstValue },
        reply: (x) => entityReply(x, `of those, the one ${w.that(t)} ${mw.least}`, mw.least),
      };
    }
  }
}

/** Capability 2: one endpoint among dozens of similar ones. */
export function endpointQuestion(f: DomainFacts, rng: Rng, kind: number): Question {
  const t = pick(rng, kind % 6 === 0 ? f.tables : f.named);
  const measures = f.cols(t, "measure");
  const m = pick(rng, measures.length ? measures : t.columns);
  const nameCol = nameColumn(t);
  const call = (name: string, args: Record<string, unknown> = {}) => ({ name, args: () => args });
  const topName = (r: unknown[]) => cell(field(firstRow(last(r)), nameCol?.name ?? "id"));
  const w = f.words;
  const noun = w.noun(t);
  switch (kind % 6) {
    case 0: {
      const count = (r: unknown[]) => cell(field(last(r), "count"));
      const o = other(rng, f.tables, t);
      return {
        gt: { query: `How many ${noun.many} are there?`, steps: [call(`get_${t.name}_count`)], answer: count },
        wrong: { query: "", steps: [call(`get_${o.name}_count`)], answer: count },
        reply: (v) => countReply(v, noun, false),
      };
    }
    case 1: {
      const mw = w.measure(t, m);
      return {
        gt: { query: `Which ${noun.one} ${mw.most}?`, steps: [call(`top_${t.name}_by_${m.name}`, { n: 1 })], answer: topName },
        wrong: { query: "", steps: [call(`top_${t.name}_by_${m.name}`, { n: 1, ascending: true })], answer: topName },
        reply: (v) => entityReply(v, w.extreme(t, m, true), mw.most),
      };
    }
    case 2: {
      const mean = (r: unknown[]) => cell(field(last(r), "mean"));
      const m2 = other(rng, measures, m);
      const mw = w.measure(t, m);
      return {
        gt: { query: `What is the average ${mw.noun} of all the ${noun.many}?`, steps: [call(`get_${t.name}_${m.name}_stats`)], answer: mean },
        wrong: { query: "", steps: [call(`get_${t.name}_${m2.name}_stats`)], answer: mean },
        reply: (v) => averageReply(v, mw.noun, `all the ${noun.many}`),
      };
    }
    case 3: {
      const cats = f.tables.flatMap((x) => f.cols(x, "category").map((c) => ({ x, c })));
      const { x, c } = pick(rng, cats);
      const top = (r: unknown[]) => cell(field(firstRow(last(r)), c.name));
      const alt = other(rng, cats, cats.find((k) => k.c === c)!);
      const altTop = (r: unknown[]) => cell(field(firstRow(last(r)), alt.c.name));
      const cw = w.category(x, c);
      return {
        gt: { query: cw.mostCommon, steps: [call(`count_${x.name}_by_${c.name}`)], answer: top },
        wrong: { query: "", steps: [call(`count_${alt.x.name}_by_${alt.c.name}`)], answer: altTop },
        reply: (v) => (x.name === "loans" && c.name === "returned" ? returnedReply(v) : mostCommonReply(v, cw, w.noun(x))),
      };
    }
    case 4: {
      const names = f.names(t);
      const n = pick(rng, names);
      const value = (r: unknown[]) => cell(field(last(r), m.name));
      return {
        gt: { query: w.askMeasure(t, m, w.named(t, n)), steps: [call(`get_${t.name}_by_${nameCol!.name}`, { [nameCol!.name]: n })], answer: value },
        wrong: { query: "", steps: [call(`get_${t.name}_by_${nameCol!.name}`, { [nameCol!.name]: other(rng, names, n) })], answer: value },
        reply: (v) => w.tellMeasure(t, m, v),
      };
    }
    default: {
      const cats = f.tables.flatMap((x) => f.cols(x, "category").map((c) => ({ x, c })));
      const { x, c } = pick(rng, cats);
      const values = f.values(x, c);
      const v = pick(rng, values);
      const rows = (r: unknown[]) => cell(rowCount(last(r)));
      const list = (value: string) => call(`list_${x.name}_by_${c.name}`, { value: categoryValue(value, c) });
      return {
        gt: { query: w.howMany(x, c, v), steps: [list(v)], answer: rows },
        wrong: { query: "", steps: [list(other(rng, values, v))], answer: rows },
        reply: (r) => countReply(r, w.noun(x), true),
      };
    }
  }
}

/** Capability 3: the output of one call feeds the next. */
export function multihopQuestion(f: DomainFacts, rng: Rng, kind: number): Question {
  const { t, ref, target } = pick(rng, f.referring);
  const m = pick(rng, f.cols(t, "measure"));
  const targetName = nameColumn(target)!.name;
  const top = (ascending: boolean) => ({ name: `top_${t.name}_by_${m.name}`, args: () => ({ n: 1, ...(ascending ? { ascending: true } : {}) }) });
  const byId = { name: `get_${target.name}_by_id`, args: (p: unknown[]) => ({ id: firstRow(last(p))[ref.name] }) };
  const refName = (r: unknown[]) => cell(field(last(r), targetName));
  const w = f.words;
  const link = w.relation(t, ref);
  switch (kind % 3) {
    case 0:
      return {
        gt: { query: link.which(w.extreme(t, m, true)), steps: [top(false), byId], answer: refName },
        wrong: { query: "", steps: [top(true), byId], answer: refName },
        reply: (v) => nameReply(v, w.noun(target)),
      };
    case 1: {
      const count = (r: unknown[]) => cell(rowCount(last(r)));
      const same = { name: `list_${t.name}_by_${ref.name}`, args: (p: unknown[]) => ({ value: firstRow(last(p))[ref.name] }) };
      return {
        gt: { query: link.count(w.extreme(t, m, true)), steps: [top(false), same], answer: count },
        wrong: { query: "", steps: [top(true), same], answer: count },
        reply: (v) => countReply(v, w.noun(t), false),
      };
    }
    default: {
      const cats = f.cols(target, "category");
      const c = cats.length ? pick(rng, cats) : nameColumn(target)!;
      const value = (r: unknown[]) => cell(field(last(r), c.name));
      const whose = link.of(w.extreme(t, m, false));
      // A target with no category (berths) is asked for its name.
      const cw = cats.length ? w.category(target, c) : undefined;
      return {
        gt: { query: cw ? cw.ask(whose) : `What is the name of ${whose}?`, steps: [top(true), byId], answer: value },
        wrong: { query: "", steps: [top(false), byId], answer: value },
        reply: (v) => (cw ? categoryReply(v, cw, w.noun(target)) : nameReply(v, w.noun(target))),
      };
    }
  }
}

export interface FollowUp {
  /** The entity the first turn found: its table and name. */
  table: TableSchema;
  first: Question;
}

/** A first turn that finds a named entity, for multi-turn dialogues. */
export function entityQuestion(f: DomainFacts, rng: Rng): FollowUp {
  const t = pick(rng, f.named);
  const m = pick(rng, f.cols(t, "measure"));
  const nameCol = nameColumn(t)!.name;
  const top = (ascending: boolean) => ({ name: `top_${t.name}_by_${m.name}`, args: () => ({ n: 1, ...(ascending ? { ascending: true } : {}) }) });
  const name = (r: unknown[]) => cell(field(firstRow(last(r)), nameCol));
  const w = f.words;
  const mw = w.measure(t, m);
  return {
    table: t,
    first: {
      gt: { query: `Which ${w.noun(t).one} ${mw.most}?`, steps: [top(false)], answer: name },
      wrong: { query: "", steps: [top(true)], answer: name },
      reply: (v) => entityReply(v, w.extreme(t, m, true), mw.most),
    },
  };
}

/** The scored last turn about that entity: API only, retriever only, or both (multi-source). */
export function followUpQuestion(f: DomainFacts, rng: Rng, fu: FollowUp, entity: string, sources: "api" | "rag" | "multi", collection: string): Question {
  const t = fu.table;
  const m = pick(rng, f.cols(t, "measure"));
  const nameCol = nameColumn(t)!.name;
  const lookup = (n: string) => ({ name: `get_${t.name}_by_${nameCol}`, args: () => ({ [nameCol]: n }) });
  const retrieve = (q: string) => ({ name: `query_${collection}`, args: () => ({ question: q }) });
  const value = (r: unknown[]) => cell(field(r.find((x) => x && typeof x === "object" && !Array.isArray(x) && m.name in (x as object)), m.name));
  const title = (r: unknown[]) => cell(((last(r) as { results?: { title?: string }[] } | undefined)?.results?.[0]?.title) ?? undefined);
  const wrongEntity = other(rng, f.names(t), entity);
  const w = f.words;
  const it = w.pronoun(t);
  const ask = w.askMeasure(t, m, it);
  const tell = (v: string) => w.tellMeasure(t, m, v);
  if (sources === "api") return { gt: { query: `And ${ask.charAt(0).toLowerCase()}${ask.slice(1)}`, steps: [lookup(entity)], answer: value }, wrong: { query: "", steps: [lookup(wrongEntity)], answer: value }, reply: tell };
  if (sources === "rag") {
    return {
      gt: { query: `Which document in the ${collection} archive says the most about the ${w.noun(t).one} ${entity}?`, steps: [retrieve(`${entity} ${singular(t.name)}`)], answer: title },
      wrong: { query: "", steps: [retrieve(`${singular(t.name)} history`)], answer: title },
      reply: documentReply,
    };
  }
  return {
    gt: { query: `${ask.replace(/\?$/, "")}, and what does the ${collection} archive say about ${it.person ? "them" : "it"}?`, steps: [lookup(entity), retrieve(entity)], answer: value },
    wrong: { query: "", steps: [lookup(wrongEntity), retrieve(wrongEntity)], answer: value },
    reply: tell,
  };
}
