/**
 * The demo's document collections, one per domain plus `travel`. The prose is ours; entity
 * names and the few figures quoted come from the same seeded generation as the databases,
 * so a document and an API answer about the same ship, book or race agree.
 */
import { DOMAIN_SEEDS, type Domain } from "./domains";
import { generateRows, type Row } from "./generate-rows";
import type { Document } from "./rank-documents";

export const COLLECTIONS = ["harbor", "library", "velodrome", "travel"] as const;
export type Collection = (typeof COLLECTIONS)[number];

export const isCollection = (value: string): value is Collection => (COLLECTIONS as readonly string[]).includes(value);

type Rows = Record<string, Row[]>;

const rowsOf = (rows: Rows, table: string): Row[] => rows[table] ?? [];
const num = (row: Row | undefined, column: string): number => Number(row?.[column] ?? 0);
const str = (row: Row | undefined, column: string): string => String(row?.[column] ?? "");
const byId = (rows: Row[], id: unknown) => rows.find((r) => r.id === id);

/** The row with the largest (or, with `sign` -1, smallest) value; the lowest id wins ties. */
function extreme(rows: Row[], column: string, sign: 1 | -1 = 1): Row | undefined {
  return rows.reduce<Row | undefined>((best, r) => (best === undefined || sign * (num(r, column) - num(best, column)) > 0 ? r : best), undefined);
}

/** The most frequent value of `column` with its count; the smallest value wins ties. */
function mostFrequent(rows: Row[], column: string): [number, number] {
  const counts = new Map<number, number>();
  for (const r of rows) counts.set(num(r, column), (counts.get(num(r, column)) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0] ?? [0, 0];
}

const numbered = (prefix: string, docs: [string, string][]): Document[] =>
  docs.map(([title, text], i) => ({ id: `${prefix}-${String(i + 1).padStart(2, "0")}`, title, text }));

function harbor(rows: Rows): Document[] {
  const [operators, ships, berths, dockings] = ["operators", "ships", "berths", "dockings"].map((t) => rowsOf(rows, t)) as [Row[], Row[], Row[], Row[]];
  const longestBerth = extreme(berths, "length_m");
  const priciestBerth = extreme(berths, "daily_fee");
  const [topOperatorId, fleet] = mostFrequent(ships, "operator_id");
  const topOperator = byId(operators, topOperatorId);
  const biggest = extreme(ships, "tonnage");
  const oldest = extreme(ships, "built_year", -1);
  const [busiestBerthId, busiestCount] = mostFrequent(dockings, "berth_id");
  const busiest = byId(berths, busiestBerthId);
  const [frequentShipId, visits] = mostFrequent(dockings, "ship_id");
  const frequent = byId(ships, frequentShipId);
  const otherOperator = operators[3];
  return numbered("harbor", [
    [
      "Berth allocation policy",
      "Vessels longer than 300 metres are normally assigned to the Container Terminal berths, whose basin was dredged for deep-draught ships. Smaller vessels are placed on North Quay and South Quay. Requests for a specific berth must reach the harbor master 48 hours before arrival.",
    ],
    [
      "The longest berth",
      `${str(longestBerth, "name")} is the longest berth in the port, with ${num(longestBerth, "length_m")} metres of quay. It is kept free for the largest bulk carriers and tankers whenever the schedule allows.`,
    ],
    [
      "Berth fees",
      `Berth fees are charged per calendar day, counting both the arrival and the departure day. The most expensive berth is ${str(priciestBerth, "name")} at ${num(priciestBerth, "daily_fee")} per day, reflecting its cranes and shore power connection. Fees are invoiced to the ship's operator, not to the cargo owner.`,
    ],
    [
      "Largest fleet",
      `${str(topOperator, "name")}, registered in ${str(topOperator, "country")}, runs ${fleet} vessels on the harbor register; no operator runs more. The company holds a framework agreement that gives its ships priority when two arrivals compete for the same berth.`,
    ],
    [
      "Largest vessel on the register",
      `The ${str(biggest, "name")} is the largest ship known to the harbor, at ${num(biggest, "tonnage")} gross tons and ${num(biggest, "length_m")} metres. Its visits require two tugs and a pilot with a deep-sea licence.`,
    ],
    [
      "Veteran ships",
      `The ${str(oldest, "name")}, built in ${num(oldest, "built_year")}, is among the oldest vessels still calling at the port. Ships older than thirty years receive an extra hull inspection every second visit.`,
    ],
    [
      "Busiest berth",
      `Over the last two years ${str(busiest, "name")} handled ${busiestCount} dockings, more than or as many as any other berth. Its turnaround crews work in three shifts to keep the queue short.`,
    ],
    [
      "A familiar visitor",
      `The ${str(frequent, "name")} is one of the port's most frequent callers, with ${visits} recorded dockings. Dock workers joke that it has its own mooring lines waiting on the quay.`,
    ],
    [
      "Ferry Dock",
      "Ferry Dock 1 to Ferry Dock 4 serve passenger and vehicle ferries. Boarding gates open ninety minutes before departure, and foot passengers must check in at the terminal building. Freight lorries use the separate ramp on the eastern side.",
    ],
    [
      "Hazardous cargo",
      "Ships carrying crude oil or chemicals must file a hazardous-cargo declaration before entering the harbor. A fire watch stays on board for the whole docking, and hot work such as welding is forbidden within fifty metres of the hull.",
    ],
    [
      "Compulsory pilotage",
      "Pilotage is compulsory for every vessel above 5,000 gross tons and for all tankers regardless of size. Pilots board at the outer buoy, and the service is billed together with the berth fee.",
    ],
    [
      "Flags of convenience",
      "Many vessels calling here fly the flags of Panama, Liberia or Malta, even when their operators are based elsewhere. The flag state decides which safety certificates the port inspectors ask to see.",
    ],
    [
      "Operator profile",
      `${str(otherOperator, "name")} is a ${str(otherOperator, "country")}-based operator that has called at the port for many years. Its ships mostly carry general cargo and are known for punctual departures.`,
    ],
    [
      "Grain season",
      "Bulk grain arrivals peak in late summer and autumn, after the harvest. During those months the harbor master opens East Pier for grain carriers and suspends maintenance work on the conveyor belts.",
    ],
    [
      "History of the port",
      "The harbor began as a fishing quay and grew into a trading port in the nineteenth century. The Container Terminal was added in the 1990s, and West Pier was rebuilt after a storm damaged its timber piles.",
    ],
  ]);
}

function library(rows: Rows): Document[] {
  const [authors, books, members, loans] = ["authors", "books", "members", "loans"].map((t) => rowsOf(rows, t)) as [Row[], Row[], Row[], Row[]];
  const [prolificId, bookCount] = mostFrequent(books, "author_id");
  const prolific = byId(authors, prolificId);
  const longest = extreme(books, "pages");
  const oldestBook = extreme(books, "year", -1);
  const [popularId, loanCount] = mostFrequent(loans, "book_id");
  const popular = byId(books, popularId);
  const [readerId, readerLoans] = mostFrequent(loans, "member_id");
  const reader = byId(members, readerId);
  const clubBook = books[7];
  const spotlight = authors[11];
  return numbered("library", [
    [
      "Loan periods",
      "A standard loan lasts 21 days and can be renewed twice if nobody has reserved the book. Reference works and items from the rare books room cannot be borrowed at all.",
    ],
    [
      "Late returns",
      "Books returned after the due date cost 20 cents per day, up to the price of the book. Members with more than three overdue items cannot borrow until they return them.",
    ],
    [
      "Branches",
      "The library has branches in Leiden, Porto, Ghent, Bergen, Lyon, Turin, Krakow, Tartu, Cork and Basel. A membership card is valid in every branch, and books can be returned to any of them.",
    ],
    [
      "A prolific author",
      `${str(prolific, "name")}, born in ${num(prolific, "born_year")} in ${str(prolific, "country")}, has ${bookCount} books in the catalogue; no author has more. A whole shelf in the main hall is dedicated to this work.`,
    ],
    [
      "The longest book",
      `"${str(longest, "title")}" runs to ${num(longest, "pages")} pages; no book in the catalogue is longer. Readers may keep it for an extra week without asking for a renewal.`,
    ],
    [
      "Oldest title",
      `"${str(oldestBook, "title")}", published in ${num(oldestBook, "year")}, is among the oldest titles in the catalogue. Its copies are kept in climate-controlled cases.`,
    ],
    [
      "A reader favourite",
      `"${str(popular, "title")}" was borrowed ${loanCount} times in the last three years; no book was borrowed more often. The library bought extra copies after a long waiting list formed.`,
    ],
    [
      "Reader of the year",
      `${str(reader, "name")} from ${str(reader, "city")} borrowed ${readerLoans} books, a tally no other member beats. The library thanked this reader with a lifetime membership.`,
    ],
    [
      "Reading club",
      `This season the Thursday reading club discusses "${str(clubBook, "title")}". Meetings take place in the main reading room at seven in the evening, and new members are welcome.`,
    ],
    [
      "Author spotlight",
      `This month's spotlight is on ${str(spotlight, "name")}, a writer from ${str(spotlight, "country")} born in ${num(spotlight, "born_year")}. The display near the entrance shows first editions and letters to the publisher.`,
    ],
    [
      "How books are shelved",
      "Fiction is shelved by genre and then by the author's surname: mystery, science fiction, fantasy, romance and children's books each have their own section. Non-fiction such as history, biography, travel and philosophy follows a subject classification.",
    ],
    [
      "Reservations",
      "When every copy of a book is on loan, members can place a reservation at the desk or online. The book is held for five days once it comes back, and the member receives a message.",
    ],
    [
      "Rare books room",
      "The rare books room holds manuscripts, maps and early printed editions. Visitors must book a slot in advance, wear cotton gloves and use pencils only.",
    ],
    [
      "Becoming a member",
      "Anyone living in a branch city can join with proof of address. Membership is free for children and students; adults pay a small yearly fee that funds new acquisitions.",
    ],
    [
      "History of the library",
      "The library started as a private collection donated by a merchant family and opened to the public a century later. The main hall, with its iron galleries, is a listed building.",
    ],
  ]);
}

function velodrome(rows: Rows): Document[] {
  const [teams, riders, races, results] = ["teams", "riders", "races", "results"].map((t) => rowsOf(rows, t)) as [Row[], Row[], Row[], Row[]];
  const winners = results.filter((r) => r.position === 1);
  const [topWinnerId, wins] = mostFrequent(winners, "rider_id");
  const topWinner = byId(riders, topWinnerId);
  const topWinnerTeam = byId(teams, topWinner?.team_id);
  const longestRace = extreme(races, "distance_km");
  const longestWinner = byId(riders, winners.find((w) => w.race_id === longestRace?.id)?.rider_id);
  const fastest = extreme(results, "avg_speed_kmh");
  const fastestRider = byId(riders, fastest?.rider_id);
  const fastestRace = byId(races, fastest?.race_id);
  const youngest = extreme(riders, "born_year");
  const founding = races[0];
  const sortedDates = races.map((r) => str(r, "date")).sort();
  const featured = teams[2];
  const timeTrial = races.find((r) => r.category === "time trial");
  return numbered("velodrome", [
    [
      "Race categories",
      "The calendar mixes four kinds of events: one-day classics and grands prix, multi-day stage tours, short criteriums on closed city circuits, and individual time trials. Each category awards a different number of season points.",
    ],
    [
      "Time trial rules",
      "In a time trial riders start alone at one-minute intervals and may not draft behind another rider. Aerodynamic bikes are allowed, but the frame must pass the commissaires' template check before the start.",
    ],
    [
      "Most race wins",
      `${str(topWinner, "name")} of ${str(topWinnerTeam, "name")} won ${wins} races this season; no rider won more. Rivals say the sprint finish is where the victories are made.`,
    ],
    [
      "The longest race",
      `The ${str(longestRace, "name")} is the longest event of the season at ${num(longestRace, "distance_km")} km. It was won by ${str(longestWinner, "name")} after a long solo breakaway.`,
    ],
    [
      "Fastest ride of the season",
      `The highest average speed of the season, ${num(fastest, "avg_speed_kmh")} km/h, was set by ${str(fastestRider, "name")} at the ${str(fastestRace, "name")}. A tailwind on the final straight helped.`,
    ],
    [
      "Youngest in the peloton",
      `${str(youngest, "name")}, born in ${num(youngest, "born_year")}, is among the youngest riders in the peloton. Team staff limit the number of race days for riders in their first professional season.`,
    ],
    [
      "Season calendar",
      `The season opens on ${sortedDates[0] ?? ""} and closes on ${sortedDates[sortedDates.length - 1] ?? ""}. The ${str(founding, "name")} was the first event added to the calendar when the series was founded.`,
    ],
    [
      "Team profile",
      `${str(featured, "name")} is sponsored by ${str(featured, "sponsor")} and registered in ${str(featured, "country")}. Like every team in the series it fields a squad of eight riders.`,
    ],
    [
      "Criterium format",
      "A criterium is raced over many laps of a short closed circuit, usually in a town centre. Riders who are lapped by the leaders are pulled from the race, and intermediate sprints award bonus points.",
    ],
    [
      "Points system",
      "Season points go to the first fifteen finishers of each race, with the winner receiving the most. Stage tours count double, and ties in the standings are broken by the number of wins.",
    ],
    [
      "Anti-doping controls",
      "The winner and two randomly drawn riders are tested after every race. Riders must report their whereabouts for out-of-competition testing throughout the season.",
    ],
    [
      "Against the clock",
      `The ${str(timeTrial, "name")} is a time trial over ${num(timeTrial, "distance_km")} km. Teams bring their specialists, and the start order is the reverse of the current standings.`,
    ],
    [
      "Team cars and support",
      "Each team may follow the race with two cars carrying spare wheels, bikes and bottles. Mechanical help is only allowed behind the peloton, never at the front of the race.",
    ],
    [
      "Weather protocol",
      "When heat, snow or storms make racing unsafe, the organisers can shorten or neutralise a stage after consulting the riders' representatives. Times are then taken at the last safe checkpoint.",
    ],
  ]);
}

function travel(): Document[] {
  return numbered("travel", [
    ["Harbourside hotels", "Several hotels line the old harbor front, most within a ten-minute walk of Ferry Dock. Rooms facing the water cost more but are quieter at night than those above the fish market."],
    ["Ferry timetables", "Ferries to the islands leave every two hours in summer and three times a day in winter. Vehicles must be booked in advance, while foot passengers can buy tickets at the terminal."],
    ["Travelling with a bicycle", "Most airlines carry bicycles as special baggage if they are packed in a box or padded bag. Announce the bike when booking, because the number of places on each flight is limited."],
    ["Cyclist-friendly hotels", "Hotels near the race circuits often offer locked bike storage, a small workshop and early breakfasts on race days. Ask for these services when booking, since they fill up during the season."],
    ["Planning a multi-city trip", "Open-jaw tickets let travellers fly into one city and out of another, which saves doubling back. Leave at least one free day between long transfers to absorb delays."],
    ["Rail passes", "A regional rail pass covers unlimited travel on a set number of days within a month. It is usually worth buying when a trip includes four or more long train journeys."],
    ["Hotel cancellation policies", "Flexible hotel rates can be cancelled free of charge until a day or two before arrival, while prepaid rates are cheaper but non-refundable. Always check the deadline in the booking confirmation."],
    ["Travel insurance", "Travel insurance covers medical costs abroad, lost luggage and cancelled trips. Sports equipment such as bicycles is often excluded unless it is declared in the policy."],
    ["Literary city breaks", "Many visitors combine a city break with a visit to a historic library or a book festival. Reading rooms often require a day pass, so bring an identity document."],
    ["Best season to travel", "Late spring and early autumn offer mild weather and lower prices than the summer peak. Coastal towns can be windy in autumn, which sometimes delays ferry crossings."],
  ]);
}

let cache: Record<Collection, Document[]> | undefined;

/** All collections, generated once per process. */
export function documentCollections(): Record<Collection, Document[]> {
  const rows = (domain: Domain) => generateRows(domain, DOMAIN_SEEDS[domain]);
  cache ??= { harbor: harbor(rows("harbor")), library: library(rows("library")), velodrome: velodrome(rows("velodrome")), travel: travel() };
  return cache;
}
