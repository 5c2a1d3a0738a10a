/**
 * Question templates for the demo benchmark, generic over a domain's schema, so every
 * domain gets the same kinds of questions about its own tables. Each template yields the
 * ground-truth plan and a plausible wrong plan (a near-miss tool or argument) that the
 * sample agents use when they get a question wrong.
 */
import Database from "better-sqlite3";
import { SCHEMAS, nameColumn, type Column, type Domain, type TableSchema } from "../../benchmarks/demo/environment/domains";
import { cell, field, firstRow, handleOf, last, rowCount, type Plan } from "./plan";

export interface Question {
  gt: Plan;
  wrong: Plan;
}

type Rng = () => number;
const pick = <T>(rng: Rng, xs: readonly T[]): T => {
  if (xs.length === 0) throw new Error("nothing to pick from");
  return xs[Math.floor(rng() * xs.length)]!;
};
const other = <T>(rng: Rng, xs: readonly T[], not: T): T => pick(rng, xs.filter((x) => x !== not).length ? xs.filter((x) => x !== not) : xs);
const human = (s: string) => s.replace(/_m$/, " (m)").replace(/_kmh$/, " (km/h)").replace(/_s$/, " (s)").replace(/_/g, " ");
const singular = (t: string) => t.replace(/ies$/, "y").replace(/s$/, "");

export class DomainFacts {
  readonly tables: TableSchema[];
  constructor(
    readonly domain: Domain,
    private readonly db: Database.Database,
  ) {
    this.tables = SCHEMAS[domain];
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
  switch (kind % 6) {
    case 0:
      return { table, gt: { query: `How many ${t.name} have ${human(cat.name)} ${v}?`, steps: [filter(v), count], answer: countAnswer }, wrong: { query: "", steps: [filter(other(rng, values, v)), count], answer: countAnswer } };
    case 1:
      return { table, gt: { query: `Which ${singular(t.name)} has the highest ${human(m.name)}?`, steps: topName(false), answer: firstValue }, wrong: { query: "", steps: topName(true), answer: firstValue } };
    case 2: {
      const agg = (operation: string) => ({ name: "aggregate_data", args: (p: unknown[]) => ({ data_label: label(p), key_name: m.name, operation }) });
      const valueAnswer = (r: unknown[]) => cell(field(last(r), "value"));
      return { table, gt: { query: `What is the average ${human(m.name)} of ${t.name} with ${human(cat.name)} ${v}?`, steps: [filter(v), agg("mean")], answer: valueAnswer }, wrong: { query: "", steps: [filter(v), agg("max")], answer: valueAnswer } };
    }
    case 3: {
      const threshold = f.median(t, m);
      const cmp = (operator: string) => ({ name: "filter_data", args: (p: unknown[]) => ({ data_label: label(p), key_name: m.name, operator, value: threshold }) });
      return { table, gt: { query: `How many ${t.name} have a ${human(m.name)} greater than ${threshold}?`, steps: [cmp("greater_than"), count], answer: countAnswer }, wrong: { query: "", steps: [cmp("less_than"), count], answer: countAnswer } };
    }
    case 4: {
      const group = (c: Column) => ({ name: "group_count", args: (p: unknown[]) => ({ data_label: label(p), key_name: c.name }) });
      const top = (r: unknown[]) => cell(((last(r) as unknown[][] | undefined)?.[0]?.[0] as string | undefined) ?? undefined);
      return { table, gt: { query: `Which ${human(cat.name)} is the most common among ${t.name}?`, steps: [group(cat)], answer: top }, wrong: { query: "", steps: [group(nameColumn(t)!)], answer: top } };
    }
    default: {
      const steps = (ascending: boolean) => [filter(v), ...topName(ascending)];
      return { table, gt: { query: `Among ${t.name} with ${human(cat.name)} ${v}, which has the lowest ${human(m.name)}?`, steps: steps(true), answer: firstValue }, wrong: { query: "", steps: steps(false), answer: firstValue } };
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
  switch (kind % 6) {
    case 0: {
      const count = (r: unknown[]) => cell(field(last(r), "count"));
      const o = other(rng, f.tables, t);
      return { gt: { query: `How many ${t.name} are there?`, steps: [call(`get_${t.name}_count`)], answer: count }, wrong: { query: "", steps: [call(`get_${o.name}_count`)], answer: count } };
    }
    case 1:
      return { gt: { query: `Which ${singular(t.name)} has the highest ${human(m.name)}?`, steps: [call(`top_${t.name}_by_${m.name}`, { n: 1 })], answer: topName }, wrong: { query: "", steps: [call(`top_${t.name}_by_${m.name}`, { n: 1, ascending: true })], answer: topName } };
    case 2: {
      const mean = (r: unknown[]) => cell(field(last(r), "mean"));
      const m2 = other(rng, measures, m);
      return { gt: { query: `What is the average ${human(m.name)} across all ${t.name}?`, steps: [call(`get_${t.name}_${m.name}_stats`)], answer: mean }, wrong: { query: "", steps: [call(`get_${t.name}_${m2.name}_stats`)], answer: mean } };
    }
    case 3: {
      const cats = f.tables.flatMap((x) => f.cols(x, "category").map((c) => ({ x, c })));
      const { x, c } = pick(rng, cats);
      const top = (r: unknown[]) => cell(field(firstRow(last(r)), c.name));
      const alt = other(rng, cats, cats.find((k) => k.c === c)!);
      const altTop = (r: unknown[]) => cell(field(firstRow(last(r)), alt.c.name));
      return { gt: { query: `Which ${human(c.name)} is the most common among ${x.name}?`, steps: [call(`count_${x.name}_by_${c.name}`)], answer: top }, wrong: { query: "", steps: [call(`count_${alt.x.name}_by_${alt.c.name}`)], answer: altTop } };
    }
    case 4: {
      const names = f.names(t);
      const n = pick(rng, names);
      const value = (r: unknown[]) => cell(field(last(r), m.name));
      return {
        gt: { query: `What is the ${human(m.name)} of ${n}?`, steps: [call(`get_${t.name}_by_${nameCol!.name}`, { [nameCol!.name]: n })], answer: value },
        wrong: { query: "", steps: [call(`get_${t.name}_by_${nameCol!.name}`, { [nameCol!.name]: other(rng, names, n) })], answer: value },
      };
    }
    default: {
      const cats = f.tables.flatMap((x) => f.cols(x, "category").map((c) => ({ x, c })));
      const { x, c } = pick(rng, cats);
      const values = f.values(x, c);
      const v = pick(rng, values);
      const rows = (r: unknown[]) => cell(rowCount(last(r)));
      const list = (value: string) => call(`list_${x.name}_by_${c.name}`, { value: categoryValue(value, c) });
      return { gt: { query: `How many ${x.name} have ${human(c.name)} ${v}?`, steps: [list(v)], answer: rows }, wrong: { query: "", steps: [list(other(rng, values, v))], answer: rows } };
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
  switch (kind % 3) {
    case 0:
      return {
        gt: { query: `Which ${singular(target.name)} is linked to the ${singular(t.name)} with the highest ${human(m.name)}?`, steps: [top(false), byId], answer: refName },
        wrong: { query: "", steps: [top(true), byId], answer: refName },
      };
    case 1: {
      const count = (r: unknown[]) => cell(rowCount(last(r)));
      const same = { name: `list_${t.name}_by_${ref.name}`, args: (p: unknown[]) => ({ value: firstRow(last(p))[ref.name] }) };
      return {
        gt: { query: `How many ${t.name} share the ${singular(target.name)} of the ${singular(t.name)} with the highest ${human(m.name)}?`, steps: [top(false), same], answer: count },
        wrong: { query: "", steps: [top(true), same], answer: count },
      };
    }
    default: {
      const cats = f.cols(target, "category");
      const c = cats.length ? pick(rng, cats) : nameColumn(target)!;
      const value = (r: unknown[]) => cell(field(last(r), c.name));
      return {
        gt: { query: `What is the ${human(c.name)} of the ${singular(target.name)} linked to the ${singular(t.name)} with the lowest ${human(m.name)}?`, steps: [top(true), byId], answer: value },
        wrong: { query: "", steps: [top(false), byId], answer: value },
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
  return { table: t, first: { gt: { query: `Which ${singular(t.name)} has the highest ${human(m.name)}?`, steps: [top(false)], answer: name }, wrong: { query: "", steps: [top(true)], answer: name } } };
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
  if (sources === "api") return { gt: { query: `And what is its ${human(m.name)}?`, steps: [lookup(entity)], answer: value }, wrong: { query: "", steps: [lookup(wrongEntity)], answer: value } };
  if (sources === "rag") {
    return {
      gt: { query: `Which ${collection} archive document says the most about the ${singular(t.name)} ${entity}?`, steps: [retrieve(`${entity} ${singular(t.name)}`)], answer: title },
      wrong: { query: "", steps: [retrieve(`${singular(t.name)} history`)], answer: title },
    };
  }
  return {
    gt: { query: `What is its ${human(m.name)}, and what does the ${collection} archive say about it?`, steps: [lookup(entity), retrieve(entity)], answer: value },
    wrong: { query: "", steps: [lookup(wrongEntity), retrieve(wrongEntity)], answer: value },
  };
}
