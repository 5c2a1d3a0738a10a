/**
 * How the demo's questions and answers are worded, per domain: the nouns for each table and the
 * phrases for each column, so that a question reads as a person would ask it ("Under which flag
 * do the most ships sail?") rather than as a template over column names ("Which flag is the most
 * common among ships?").
 *
 * Answers keep the graded value verbatim. The rules judge reads capitalised words and numbers in an
 * answer as claims it looks up in the evidence (lib/judges/answer-values.ts `namedValues`), so every
 * answer here opens with a word that judge skips (The, That, There, It, I, In, On, Of, According,
 * Yes, No, They) or with the value itself, echoes no value of the question and holds no digit of its
 * own: a reworded answer makes the same claims as before and scores the same.
 */
import type { Column, Domain, TableSchema } from "../../benchmarks/demo/environment/domains";

/** A table's noun: "ship"/"ships", or "library member"; people take "who" and "they". */
export interface Noun {
  one: string;
  many: string;
  person?: boolean;
}

/** Phrases for a numeric column. Verb phrases are singular for `most`/`least`, plural for `above`. */
export interface MeasureWords {
  /** As in "the average tonnage", "What is its tonnage?". */
  noun: string;
  most: string;
  least: string;
  above: (threshold: number) => string;
  /** A row at either extreme as a noun phrase ("the longest loan"), where the default "the loan that lasted the longest" reads badly. */
  mostNp?: string;
  leastNp?: string;
  /** The question for one entity's value; default "What is the <noun> of <np>?". */
  ask?: (s: Subject) => string;
  /** Three ways to state an entity's value, subject a pronoun. */
  tell?: (v: string) => string[];
}

/** Phrases for a category column (a few distinct values). */
export interface CategoryWords {
  /** As in "the most common flag state". */
  noun: string;
  /** Plural verb phrase: "How many ships <sail under the flag of Denmark>?" */
  having: (v: string) => string;
  /** Singular verb phrase: "The ship <sails under the flag of Denmark>." */
  has: (v: string) => string;
  /** The rows with value `v` as a plural noun phrase without article ("one-day races"), where that reads better than "races that …". */
  group?: (v: string) => string;
  /** The question for the most common value. */
  mostCommon: string;
  /** The question for one entity's value. */
  ask: (np: string) => string;
}

/** How a reference column links its table to the table it names. `x` is a noun phrase for a row of the referring table. */
export interface RelationWords {
  which: (x: string) => string;
  of: (x: string) => string;
  count: (x: string) => string;
}

/** The subject of a question about one entity: its name, or a pronoun in a follow-up. */
export interface Subject {
  np: string;
  pronoun: boolean;
  person: boolean;
}

/** Country names that take an article ("the Netherlands"). */
const place = (v: string) => (/^(Netherlands|United .*|Philippines)$/.test(v) ? `the ${v}` : v);
const years = (what: string, ask: (s: Subject) => string, person = false): Pick<MeasureWords, "ask" | "tell"> => ({
  ask,
  tell: (v) => [`${person ? "They were" : "It was"} ${what} in ${v}.`, `In ${v}.`, `${v}.`],
});
const was = (s: Subject) => (s.pronoun && s.person ? "were" : "was");
const length = (unit: string, short: string): MeasureWords => ({
  noun: `length in ${unit}`,
  most: "is the longest",
  least: "is the shortest",
  above: (t) => `are longer than ${t} ${short}`,
  ask: (s) => `How long is ${s.np}?`,
  tell: (v) => [`It is ${v} ${short} long.`, `Its length is ${v} ${short}.`, `${v} ${short}.`],
});
const born: MeasureWords = {
  noun: "birth year",
  most: "was born most recently",
  least: "was born the earliest",
  above: (t) => `were born after ${t}`,
  ...years("born", (s) => `In which year ${was(s)} ${s.np} born?`, true),
};
/** "Which country do the most riders come from?" is asked the same way of authors, riders and teams. */
const from: Omit<CategoryWords, "mostCommon"> = {
  noun: "country",
  having: (v) => `come from ${place(v)}`,
  has: (v) => `comes from ${place(v)}`,
  ask: (np) => `Which country does ${np} come from?`,
};

export const NOUNS: Record<Domain, Record<string, Noun>> = {
  harbor: {
    operators: { one: "operator", many: "operators" },
    ships: { one: "ship", many: "ships" },
    berths: { one: "berth", many: "berths" },
    dockings: { one: "docking", many: "dockings" },
  },
  library: {
    authors: { one: "author", many: "authors", person: true },
    books: { one: "book", many: "books" },
    members: { one: "library member", many: "library members", person: true },
    loans: { one: "loan", many: "loans" },
  },
  velodrome: {
    teams: { one: "team", many: "teams" },
    riders: { one: "rider", many: "riders", person: true },
    races: { one: "race", many: "races" },
    results: { one: "race result", many: "race results" },
  },
};

export const MEASURES: Record<Domain, Record<string, MeasureWords>> = {
  harbor: {
    "ships.tonnage": { noun: "tonnage", most: "has the largest tonnage", least: "has the smallest tonnage", above: (t) => `have a tonnage above ${t}` },
    "ships.length_m": length("metres", "metres"),
    "ships.built_year": {
      noun: "build year",
      most: "was built most recently",
      least: "was built the earliest",
      above: (t) => `were built after ${t}`,
      ...years("built", (s) => `In which year ${was(s)} ${s.np} built?`),
    },
    "berths.length_m": length("metres", "metres"),
    "berths.daily_fee": { noun: "daily fee", most: "charges the highest daily fee", least: "charges the lowest daily fee", above: (t) => `charge a daily fee above ${t}` },
    "dockings.cargo_tons": {
      noun: "cargo in tons",
      most: "carried the most cargo",
      least: "carried the least cargo",
      above: (t) => `carried more than ${t} tons of cargo`,
      mostNp: "the docking with the most cargo",
      leastNp: "the docking with the least cargo",
    },
  },
  library: {
    "authors.born_year": born,
    "books.year": {
      noun: "publication year",
      most: "was published most recently",
      least: "was published the earliest",
      above: (t) => `were published after ${t}`,
      ...years("published", (s) => `In which year ${was(s)} ${s.np} published?`),
    },
    "books.pages": {
      noun: "page count",
      most: "has the most pages",
      least: "has the fewest pages",
      above: (t) => `have more than ${t} pages`,
      ask: (s) => `How many pages does ${s.np} have?`,
      tell: (v) => [`It has ${v} pages.`, `${v} pages.`, `${v}.`],
    },
    "books.copies": {
      noun: "number of copies",
      most: "has the most copies",
      least: "has the fewest copies",
      above: (t) => `have more than ${t} copies`,
      ask: (s) => `How many copies of ${s.np} does the library have?`,
      tell: (v) => [`The library has ${v} copies.`, `${v} copies.`, `${v}.`],
    },
    "members.joined_year": {
      noun: "joining year",
      most: "joined most recently",
      least: "joined the earliest",
      above: (t) => `joined after ${t}`,
      ask: (s) => `In which year did ${s.np} join the library?`,
      tell: (v) => [`They joined in ${v}.`, `In ${v}.`, `${v}.`],
    },
    "loans.days": { noun: "loan length in days", most: "lasted the longest", least: "was the shortest", above: (t) => `lasted more than ${t} days`, mostNp: "the longest loan", leastNp: "the shortest loan" },
  },
  velodrome: {
    "riders.born_year": born,
    "races.distance_km": {
      noun: "distance in km",
      most: "is the longest",
      least: "is the shortest",
      above: (t) => `are longer than ${t} km`,
      ask: (s) => `How long is ${s.np}?`,
      tell: (v) => [`It is ${v} km long.`, `The distance is ${v} km.`, `${v} km.`],
    },
    "results.position": { noun: "finishing position", most: "had the worst finishing position", least: "had the best finishing position", above: (t) => `finished behind position ${t}` },
    "results.time_s": { noun: "time in seconds", most: "had the longest time", least: "had the shortest time", above: (t) => `took longer than ${t} seconds` },
    "results.avg_speed_kmh": { noun: "average speed in km/h", most: "had the highest average speed", least: "had the lowest average speed", above: (t) => `averaged more than ${t} km/h` },
  },
};

export const CATEGORIES: Record<Domain, Record<string, CategoryWords>> = {
  harbor: {
    "operators.country": {
      noun: "country",
      having: (v) => `are based in ${place(v)}`,
      has: (v) => `is based in ${place(v)}`,
      mostCommon: "In which country are the most operators based?",
      ask: (np) => `In which country is ${np} based?`,
    },
    "ships.flag": {
      noun: "flag state",
      having: (v) => `sail under the flag of ${place(v)}`,
      has: (v) => `sails under the flag of ${place(v)}`,
      mostCommon: "Under which flag do the most ships sail?",
      ask: (np) => `Under which flag does ${np} sail?`,
    },
    "dockings.cargo_type": {
      noun: "cargo",
      having: (v) => `carried ${v}`,
      has: (v) => `carried ${v}`,
      mostCommon: "Which cargo was carried in the most dockings?",
      ask: (np) => `What cargo did ${np} carry?`,
    },
  },
  library: {
    "authors.country": { ...from, mostCommon: "Which country do the most authors come from?" },
    "books.genre": {
      noun: "genre",
      having: (v) => `belong to the ${v} genre`,
      has: (v) => `belongs to the ${v} genre`,
      mostCommon: "Which genre has the most books?",
      ask: (np) => `Which genre does ${np} belong to?`,
    },
    "members.city": {
      noun: "city",
      having: (v) => `live in ${v}`,
      has: (v) => `lives in ${v}`,
      mostCommon: "In which city do the most library members live?",
      ask: (np) => `In which city does ${np} live?`,
    },
    // 0/1 in the database (SQLite has no boolean): asked as a yes/no question, see `returnedReply`.
    "loans.returned": {
      noun: "return status",
      having: (v) => (v === "1" ? "have been returned" : v === "0" ? "have not been returned yet" : `have the return status ${v}`),
      has: (v) => (v === "1" ? "has been returned" : v === "0" ? "has not been returned yet" : `has the return status ${v}`),
      mostCommon: "Have most loans been returned?",
      ask: (np) => `Has ${np} been returned?`,
    },
  },
  velodrome: {
    "teams.sponsor": {
      noun: "sponsor",
      having: (v) => `are sponsored by ${v}`,
      has: (v) => `is sponsored by ${v}`,
      mostCommon: "Which sponsor backs the most teams?",
      ask: (np) => `Who sponsors ${np}?`,
    },
    "teams.country": { ...from, mostCommon: "Which country do the most teams come from?" },
    "riders.country": { ...from, mostCommon: "Which country do the most riders come from?" },
    "races.category": {
      noun: "category",
      having: (v) => `are ${v} races`,
      group: (v) => `${v} races`,
      has: (v) => `is a ${v} race`,
      mostCommon: "Which kind of race is the most common?",
      ask: (np) => `In which category was ${np}?`,
    },
  },
};

export const RELATIONS: Record<Domain, Record<string, RelationWords>> = {
  harbor: {
    "ships.operator_id": { which: (x) => `Which operator runs ${x}?`, of: (x) => `the operator of ${x}`, count: (x) => `How many ships does the operator of ${x} run?` },
    "dockings.ship_id": { which: (x) => `Which ship made ${x}?`, of: (x) => `the ship that made ${x}`, count: (x) => `How many dockings are recorded for the ship that made ${x}?` },
    "dockings.berth_id": { which: (x) => `Which berth was used for ${x}?`, of: (x) => `the berth used for ${x}`, count: (x) => `How many dockings are recorded at the berth used for ${x}?` },
  },
  library: {
    "books.author_id": { which: (x) => `Who wrote ${x}?`, of: (x) => `the author of ${x}`, count: (x) => `How many books did the author of ${x} write?` },
    "loans.book_id": { which: (x) => `Which book was borrowed in ${x}?`, of: (x) => `the book borrowed in ${x}`, count: (x) => `How many loans are recorded for the book borrowed in ${x}?` },
    "loans.member_id": {
      which: (x) => `Which library member took out ${x}?`,
      of: (x) => `the library member who took out ${x}`,
      count: (x) => `How many loans are recorded for the library member who took out ${x}?`,
    },
  },
  velodrome: {
    "riders.team_id": { which: (x) => `Which team does ${x} ride for?`, of: (x) => `the team of ${x}`, count: (x) => `How many riders ride for the team of ${x}?` },
    "results.race_id": { which: (x) => `In which race was ${x} recorded?`, of: (x) => `the race where ${x} was recorded`, count: (x) => `How many race results are there for the race where ${x} was recorded?` },
    "results.rider_id": { which: (x) => `Which rider achieved ${x}?`, of: (x) => `the rider who achieved ${x}`, count: (x) => `How many race results does the rider who achieved ${x} have?` },
  },
};

const need = <T>(table: Record<string, T>, key: string, what: string): T => {
  const w = table[key];
  if (!w) throw new Error(`demo wording: no ${what} for ${key} (scripts/demo/wording.ts)`);
  return w;
};

/** The words for one domain, looked up by table and column; a column without words is an error, not a raw name. */
export class Wording {
  constructor(readonly domain: Domain) {}
  noun(t: TableSchema): Noun {
    return need(NOUNS[this.domain], t.name, "noun");
  }
  measure(t: TableSchema, c: Column): MeasureWords {
    return need(MEASURES[this.domain], `${t.name}.${c.name}`, "measure phrases");
  }
  category(t: TableSchema, c: Column): CategoryWords {
    return need(CATEGORIES[this.domain], `${t.name}.${c.name}`, "category phrases");
  }
  relation(t: TableSchema, ref: Column): RelationWords {
    return need(RELATIONS[this.domain], `${t.name}.${ref.name}`, "relation phrases");
  }
  /** "who" for people, "that" for things. */
  that(t: TableSchema) {
    return this.noun(t).person ? "who" : "that";
  }
  /** "the ship that is the longest", "the ship with the largest tonnage", or the measure's own phrase ("the longest loan"). */
  extreme(t: TableSchema, c: Column, highest: boolean) {
    const m = this.measure(t, c);
    const own = highest ? m.mostNp : m.leastNp;
    if (own) return own;
    const vp = highest ? m.most : m.least;
    const has = /^(has|had) (.*)$/.exec(vp);
    return `the ${this.noun(t).one} ${has ? `with ${has[2]}` : `${this.that(t)} ${vp}`}`;
  }
  /** The rows of `t` whose category `c` is `v`, as a plural noun phrase without article: "ships that sail under the flag of Denmark". */
  having(t: TableSchema, c: Column, v: string) {
    const cw = this.category(t, c);
    return cw.group ? cw.group(v) : `${this.noun(t).many} ${this.that(t)} ${cw.having(v)}`;
  }
  /** "How many ships sail under the flag of Denmark?", "How many one-day races are there?" */
  howMany(t: TableSchema, c: Column, v: string) {
    const cw = this.category(t, c);
    return cw.group ? `How many ${cw.group(v)} are there?` : `How many ${this.noun(t).many} ${cw.having(v)}?`;
  }
  /** A pronoun subject for follow-ups about one entity of `t`. */
  pronoun(t: TableSchema): Subject {
    const person = !!this.noun(t).person;
    return { np: person ? "they" : "it", pronoun: true, person };
  }
  named(t: TableSchema, name: string): Subject {
    return { np: name, pronoun: false, person: !!this.noun(t).person };
  }
  /** The question for one entity's value of `c`. */
  askMeasure(t: TableSchema, c: Column, s: Subject): string {
    const m = this.measure(t, c);
    if (m.ask) return m.ask(s);
    return s.pronoun ? `What is ${s.person ? "their" : "its"} ${m.noun}?` : `What is the ${m.noun} of ${s.np}?`;
  }
  tellMeasure(t: TableSchema, c: Column, v: string): string[] {
    const m = this.measure(t, c);
    return m.tell ? m.tell(v) : [this.noun(t).person ? `The ${m.noun} is ${v}.` : `Its ${m.noun} is ${v}.`, `That would be ${v}.`, `${v}.`];
  }
}

// Answers: three ways a person might state the same value (the sample agents vary their style).

/** "There are 14 such ships." Singular when the count is 1. */
export function countReply(v: string, noun: Noun, such: boolean): string[] {
  const one = v.trim() === "1";
  const what = `${such ? "such " : ""}${one ? noun.one : noun.many}`;
  return [`There ${one ? "is" : "are"} ${v} ${what}.`, `I count ${v} ${what}.`, `${v} in total.`];
}

/** "The ship with the largest tonnage is Azure Pearl." `subject` is the noun phrase the question asks for. */
export function entityReply(v: string, subject: string, vp: string): string[] {
  return [`${capitalise(subject)} is ${v}.`, `That would be ${v}.`, `${v} ${vp}.`];
}

/** A name or title asked for directly ("Which operator runs …?"). */
export function nameReply(v: string, noun: Noun): string[] {
  return [`The ${noun.one} is ${v}.`, `That would be ${v}.`, `${v}.`];
}

export function averageReply(v: string, measureNoun: string, of: string): string[] {
  return [`The average ${measureNoun} of ${of} is ${v}.`, `On average, ${v}.`, `It averages ${v}.`];
}

export function mostCommonReply(v: string, category: CategoryWords, noun: Noun): string[] {
  return [`The most common ${category.noun} among the ${noun.many} is ${v}.`, `That would be ${v}.`, `In the data, ${v} comes up most often.`];
}

/** Whether most loans are returned: the value is 1 (yes) or 0 (no), kept in the answer. */
export function returnedReply(v: string): string[] {
  if (v === "1") return ["Yes, most loans have been returned (1).", "Yes (1): most of them have come back.", "Yes, returned (1) for most of them."];
  if (v === "0") return ["No, most loans have not been returned yet (0).", "No (0): most of them are still out.", "No, not returned (0) for most of them."];
  // Another tool's value (a wrong answer): said as an agent that misread its tool would say it.
  return Array(3).fill(`The most common value I found is ${v}.`);
}

export function categoryReply(v: string, category: CategoryWords, noun: Noun): string[] {
  return [`The ${noun.one} ${category.has(v)}.`, `That would be ${v}.`, `According to the records, ${v}.`];
}

export function documentReply(v: string): string[] {
  // No quotation marks: the rules judge reads a quoted title as one claim, where the title's words alone claim less.
  return [`The document that says the most about it is titled ${v}.`, `That would be the document titled ${v}.`, `I would read the document titled ${v}.`];
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
