/**
 * Deterministic row generation for the demo domains: the same (domain, seed) always yields
 * the same rows, so databases and the documents that mention their entities agree.
 */
import type { Domain } from "./domains";
import { createRandom, round2, type Random } from "./prng";

export type Cell = string | number | null;
export type Row = Record<string, Cell>;
export type DomainRows = Record<string, Row[]>;

const COUNTRIES = ["Norway", "Greece", "Japan", "Singapore", "Netherlands", "Denmark", "Panama", "Liberia", "Germany", "Italy", "Brazil", "Canada"];
const FIRST_NAMES = [
  "Ada", "Bruno", "Clara", "Dmitri", "Elena", "Felix", "Greta", "Hugo", "Ines", "Jonas", "Kira", "Luca", "Maren", "Nils", "Olga", "Pavel",
  "Quinn", "Rosa", "Sven", "Tilde", "Umar", "Vera", "Wim", "Yara", "Zeno", "Anouk", "Bram", "Chiara", "Dario", "Esme", "Fabian", "Hana",
];
const LAST_NAMES = [
  "Albers", "Brandt", "Castillo", "Duval", "Eriksen", "Ferrari", "Gallo", "Horvat", "Ilves", "Jansen", "Kowalski", "Lindqvist", "Moreau",
  "Novak", "Okafor", "Petrov", "Quist", "Rinaldi", "Sato", "Tanaka", "Ueda", "Vidal", "Weber", "Xavier", "Young", "Zamora", "Berg", "Costa",
];

const DAY_MS = 86_400_000;
/** ISO date `days` after `start` (computed in UTC so the time zone never matters). */
function addDays(start: string, days: number): string {
  return new Date(Date.parse(`${start}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** Draws until `make` yields a value not seen before; `make` must have enough variety. */
function uniqueValues(count: number, make: () => string): string[] {
  const seen = new Set<string>();
  for (let attempts = 0; seen.size < count; attempts++) {
    if (attempts > count * 200) throw new Error(`cannot draw ${count} unique values`);
    seen.add(make());
  }
  return [...seen];
}

const personName = (r: Random) => `${r.pick(FIRST_NAMES)} ${r.pick(LAST_NAMES)}`;

function harbor(r: Random): DomainRows {
  const prefixes = ["Atlantic", "Baltic", "Coral", "Meridian", "Northstar", "Pacific", "Tidewater", "Seabright", "Anchor", "Compass", "Horizon", "Silverline", "Bluefin", "Cormorant", "Gulfstream"];
  const suffixes = ["Shipping", "Lines", "Maritime", "Freight", "Carriers", "Navigation"];
  const operators = uniqueValues(24, () => `${r.pick(prefixes)} ${r.pick(suffixes)}`).map((name, i) => ({ id: i + 1, name, country: r.pick(COUNTRIES) }));

  const adjectives = ["Northern", "Silver", "Golden", "Swift", "Quiet", "Brave", "Crimson", "Azure", "Iron", "Morning", "Evening", "Distant", "Steady", "Wild", "Proud", "Gentle", "Bold", "Lucky", "Amber", "Misty"];
  const nouns = ["Gull", "Tern", "Albatross", "Petrel", "Heron", "Orca", "Marlin", "Dolphin", "Voyager", "Pioneer", "Wanderer", "Star", "Tide", "Current", "Breeze", "Pearl", "Falcon", "Osprey", "Comet", "Lantern"];
  // Flags of convenience are over-represented, as in real registries.
  const flags = [...COUNTRIES, "Panama", "Panama", "Liberia", "Liberia", "Malta", "Malta"];
  const ships = uniqueValues(160, () => `${r.pick(adjectives)} ${r.pick(nouns)}`).map((name, i) => {
    const tonnage = r.int(2_000, 180_000);
    return {
      id: i + 1,
      name,
      flag: r.pick(flags),
      tonnage,
      length_m: round2(70 + Math.sqrt(tonnage) * 0.75 + r.next() * 25),
      built_year: r.int(1985, 2023),
      operator_id: r.int(1, operators.length),
    };
  });

  const areas = ["North Quay", "South Quay", "East Pier", "West Pier", "Container Terminal", "Ferry Dock"];
  const berths = areas.flatMap((area) => [1, 2, 3, 4].map((n) => `${area} ${n}`)).map((name, i) => ({ id: i + 1, name, length_m: r.real(150, 420), daily_fee: r.real(800, 9_000) }));

  const cargoTypes = ["containers", "bulk grain", "crude oil", "vehicles", "timber", "passengers", "coal", "chemicals"];
  const dockings = Array.from({ length: 900 }, (_, i) => {
    const ship = r.pick(ships);
    const arrival = addDays("2023-01-01", r.int(0, 729));
    return {
      id: i + 1,
      ship_id: ship.id,
      berth_id: r.int(1, berths.length),
      arrival_date: arrival,
      departure_date: addDays(arrival, r.int(1, 9)),
      cargo_tons: r.real(0, ship.tonnage * 0.8),
      cargo_type: r.pick(cargoTypes),
    };
  });
  return { operators, ships, berths, dockings };
}

function library(r: Random): DomainRows {
  const authors = uniqueValues(60, () => personName(r)).map((name, i) => ({ id: i + 1, name, country: r.pick(COUNTRIES), born_year: r.int(1900, 1995) }));

  const adjectives = ["Silent", "Hidden", "Last", "Burning", "Paper", "Winter", "Glass", "Broken", "Salt", "Hollow", "Velvet", "Distant", "Copper", "Sleeping", "Forgotten", "Crooked"];
  const nouns = ["Garden", "Lighthouse", "Archive", "River", "Orchard", "Compass", "Mirror", "Harvest", "Cartographer", "Staircase", "Observatory", "Letter", "Island", "Clockmaker", "Meadow", "Tower"];
  const places = ["Avalon", "the North", "Small Hours", "Lost Rivers", "the Delta", "Amber Hills", "Cold Harbors", "the Old Quarter", "Seven Bridges", "the Salt Flats"];
  const seasons = ["Spring", "Autumn", "Winter", "Summer", "the Rain"];
  const title = () => {
    const pattern = r.int(0, 2);
    if (pattern === 0) return `The ${r.pick(adjectives)} ${r.pick(nouns)}`;
    if (pattern === 1) return `${r.pick(nouns)}s of ${r.pick(places)}`;
    return `A ${r.pick(nouns)} in ${r.pick(seasons)}`;
  };
  const genres = ["mystery", "science fiction", "fantasy", "history", "poetry", "biography", "romance", "travel", "philosophy", "children"];
  const books = uniqueValues(320, title).map((t, i) => {
    const author = r.pick(authors);
    return {
      id: i + 1,
      title: t,
      author_id: author.id,
      genre: r.pick(genres),
      year: Math.min(2024, author.born_year + r.int(22, 75)),
      pages: r.int(80, 900),
      copies: r.int(1, 12),
    };
  });

  const cities = ["Leiden", "Porto", "Ghent", "Bergen", "Lyon", "Turin", "Krakow", "Tartu", "Cork", "Basel"];
  const members = uniqueValues(180, () => personName(r)).map((name, i) => ({ id: i + 1, name, city: r.pick(cities), joined_year: r.int(2005, 2024) }));

  const loans = Array.from({ length: 1_400 }, (_, i) => {
    const offset = r.int(0, 1_000);
    return {
      id: i + 1,
      book_id: r.int(1, books.length),
      member_id: r.int(1, members.length),
      loan_date: addDays("2022-01-01", offset),
      days: r.int(1, 60),
      // Recent loans are more often still out.
      returned: r.chance(offset > 940 ? 0.35 : 0.93) ? 1 : 0,
    };
  });
  return { authors, books, members, loans };
}

function velodrome(r: Random): DomainRows {
  const teamWords = ["Aurora", "Cobalt", "Vortex", "Summit", "Zephyr", "Granite", "Ember", "Glacier", "Meteor", "Solstice", "Tempest", "Orbit", "Kestrel", "Nimbus", "Quasar", "Sierra", "Talon", "Vector", "Cascade", "Arrow"];
  const teamKinds = ["Racing", "Cycling", "Pro Team", "Velo Club"];
  const sponsors = ["Velox Energy", "Northwind Bank", "Apex Tyres", "Helios Solar", "Brightmilk", "Crestline Insurance", "Duna Motors", "Kappa Telecom", "Lumen Optics", "Ridgeway Foods"];
  const teams = uniqueValues(18, () => `${r.pick(teamWords)} ${r.pick(teamKinds)}`).map((name, i) => ({ id: i + 1, name, sponsor: r.pick(sponsors), country: r.pick(COUNTRIES) }));

  const riders = uniqueValues(teams.length * 8, () => personName(r)).map((name, i) => ({
    id: i + 1,
    name,
    team_id: (i % teams.length) + 1,
    country: r.pick(COUNTRIES),
    born_year: r.int(1988, 2004),
  }));

  const places = ["Ardennes", "Lombardy", "Flanders", "Brabant", "Catalonia", "Basque Country", "Dauphine", "Tirreno", "Limburg", "Jura", "Vosges", "Asturias", "Algarve", "Alsace", "Picardy", "Silesia"];
  const kinds: [string, string, number, number][] = [
    ["Classic", "one-day", 150, 270],
    ["Grand Prix", "one-day", 150, 260],
    ["Tour", "stage", 120, 230],
    ["Criterium", "criterium", 40, 90],
    ["Time Trial", "time trial", 20, 55],
  ];
  const races = uniqueValues(40, () => `${r.pick(places)} ${r.pick(kinds)[0]}`).map((name, i) => {
    const kind = kinds.find(([k]) => name.endsWith(` ${k}`))!;
    return { id: i + 1, name, date: addDays("2024-02-01", r.int(0, 240)), distance_km: r.real(kind[2], kind[3]), category: kind[1] };
  });

  const results: Row[] = [];
  for (const race of races) {
    const field = r.shuffle(riders).slice(0, r.int(25, 40));
    const winnerSpeed = race.category === "time trial" ? r.real(46, 52) : r.real(39, 46);
    let time = Math.round((race.distance_km / winnerSpeed) * 3600);
    field.forEach((rider, i) => {
      if (i > 0) time += r.chance(0.4) ? 0 : r.int(1, race.category === "time trial" ? 40 : 90);
      results.push({ id: results.length + 1, race_id: race.id, rider_id: rider.id, position: i + 1, time_s: time, avg_speed_kmh: round2(race.distance_km / (time / 3600)) });
    });
  }
  return { teams, riders, races, results };
}

const GENERATORS: Record<Domain, (r: Random) => DomainRows> = { harbor, library, velodrome };

export function generateRows(domain: Domain, seed: number): DomainRows {
  return GENERATORS[domain](createRandom(seed));
}
