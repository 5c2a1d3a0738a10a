/** Hand-written endpoints that follow foreign keys, so multi-hop questions have shortcuts to find. */
import type { Database } from "better-sqlite3";
import { z } from "zod";
import type { Domain } from "../domains";
import type { Row } from "../generate-rows";
import { queryAll, queryOne } from "./query-rows";
import { defineTool, ToolError, type ToolSpec } from "./tool-spec";

/** The row of `table` whose name-like column matches (case-insensitive), or a ToolError. */
function byName(db: Database, table: string, column: string, value: string): Row {
  const row = queryOne(db, `SELECT * FROM ${table} WHERE ${column} = ? COLLATE NOCASE`, value);
  if (!row) throw new ToolError(`no ${table} record with ${column} ${JSON.stringify(value)}`);
  return row;
}

const name = (what: string) => z.string().describe(`Exact name of the ${what} (case-insensitive).`);

const harbor: ToolSpec[] = [
  defineTool({
    name: "get_ships_by_operator",
    description: "All ships run by an operator, given the operator's name, ordered by id.",
    input: { operator_name: name("operator") },
    run: ({ db }, { operator_name }) => queryAll(db, "SELECT * FROM ships WHERE operator_id = ? ORDER BY id", byName(db, "operators", "name", operator_name).id),
  }),
  defineTool({
    name: "get_operator_of_ship",
    description: "The operator record of a ship, given the ship's name.",
    input: { ship_name: name("ship") },
    run: ({ db }, { ship_name }) => queryAll(db, "SELECT * FROM operators WHERE id = ?", byName(db, "ships", "name", ship_name).operator_id)[0] ?? null,
  }),
  defineTool({
    name: "get_dockings_by_ship",
    description: "All dockings of a ship, given its name, with the berth name added; ordered by arrival date.",
    input: { ship_name: name("ship") },
    run: ({ db }, { ship_name }) =>
      queryAll(db, "SELECT d.*, b.name AS berth_name FROM dockings d JOIN berths b ON b.id = d.berth_id WHERE d.ship_id = ? ORDER BY d.arrival_date, d.id", byName(db, "ships", "name", ship_name).id),
  }),
  defineTool({
    name: "get_dockings_by_berth",
    description: "All dockings at a berth, given its name, with the ship name added; ordered by arrival date.",
    input: { berth_name: name("berth") },
    run: ({ db }, { berth_name }) =>
      queryAll(db, "SELECT d.*, s.name AS ship_name FROM dockings d JOIN ships s ON s.id = d.ship_id WHERE d.berth_id = ? ORDER BY d.arrival_date, d.id", byName(db, "berths", "name", berth_name).id),
  }),
  defineTool({
    name: "get_berth_revenue",
    description: "Fee revenue of a berth: daily fee × docked days, counting arrival and departure days. Returns {berth_name, dockings, berth_days, revenue}.",
    input: { berth_name: name("berth") },
    run: ({ db }, { berth_name }) => {
      const berth = byName(db, "berths", "name", berth_name);
      const row = queryAll(db, "SELECT COUNT(*) AS dockings, COALESCE(SUM(julianday(departure_date) - julianday(arrival_date) + 1), 0) AS days FROM dockings WHERE berth_id = ?", berth.id)[0];
      const days = Number(row?.days ?? 0);
      return { berth_name: berth.name, dockings: Number(row?.dockings ?? 0), berth_days: days, revenue: Math.round(days * Number(berth.daily_fee) * 100) / 100 };
    },
  }),
];

const library: ToolSpec[] = [
  defineTool({
    name: "get_books_by_author",
    description: "All books of an author, given the author's name, ordered by year then id.",
    input: { author_name: name("author") },
    run: ({ db }, { author_name }) => queryAll(db, "SELECT * FROM books WHERE author_id = ? ORDER BY year, id", byName(db, "authors", "name", author_name).id),
  }),
  defineTool({
    name: "get_author_of_book",
    description: "The author record of a book, given the book's title.",
    input: { title: z.string().describe("Exact title of the book (case-insensitive).") },
    run: ({ db }, { title }) => queryAll(db, "SELECT * FROM authors WHERE id = ?", byName(db, "books", "title", title).author_id)[0] ?? null,
  }),
  defineTool({
    name: "get_loans_by_member",
    description: "All loans of a member, given the member's name, with the book title added; ordered by loan date.",
    input: { member_name: name("member") },
    run: ({ db }, { member_name }) =>
      queryAll(db, "SELECT l.*, b.title AS book_title FROM loans l JOIN books b ON b.id = l.book_id WHERE l.member_id = ? ORDER BY l.loan_date, l.id", byName(db, "members", "name", member_name).id),
  }),
  defineTool({
    name: "get_loans_by_book",
    description: "All loans of a book, given its title, with the member name added; ordered by loan date.",
    input: { title: z.string().describe("Exact title of the book (case-insensitive).") },
    run: ({ db }, { title }) =>
      queryAll(db, "SELECT l.*, m.name AS member_name FROM loans l JOIN members m ON m.id = l.member_id WHERE l.book_id = ? ORDER BY l.loan_date, l.id", byName(db, "books", "title", title).id),
  }),
  defineTool({
    name: "get_unreturned_loans_by_member",
    description: "Loans a member has not returned yet, given the member's name, with the book title added.",
    input: { member_name: name("member") },
    run: ({ db }, { member_name }) =>
      queryAll(
        db,
        "SELECT l.*, b.title AS book_title FROM loans l JOIN books b ON b.id = l.book_id WHERE l.member_id = ? AND l.returned = 0 ORDER BY l.loan_date, l.id",
        byName(db, "members", "name", member_name).id,
      ),
  }),
];

const velodrome: ToolSpec[] = [
  defineTool({
    name: "get_riders_by_team",
    description: "All riders of a team, given the team's name, ordered by id.",
    input: { team_name: name("team") },
    run: ({ db }, { team_name }) => queryAll(db, "SELECT * FROM riders WHERE team_id = ? ORDER BY id", byName(db, "teams", "name", team_name).id),
  }),
  defineTool({
    name: "get_team_of_rider",
    description: "The team record of a rider, given the rider's name.",
    input: { rider_name: name("rider") },
    run: ({ db }, { rider_name }) => queryAll(db, "SELECT * FROM teams WHERE id = ?", byName(db, "riders", "name", rider_name).team_id)[0] ?? null,
  }),
  defineTool({
    name: "get_results_by_race",
    description: "The classification of a race, given its name, with rider names added; ordered by position.",
    input: { race_name: name("race") },
    run: ({ db }, { race_name }) =>
      queryAll(db, "SELECT r.*, p.name AS rider_name FROM results r JOIN riders p ON p.id = r.rider_id WHERE r.race_id = ? ORDER BY r.position", byName(db, "races", "name", race_name).id),
  }),
  defineTool({
    name: "get_results_by_rider",
    description: "All results of a rider, given the rider's name, with race name and date added; ordered by race date.",
    input: { rider_name: name("rider") },
    run: ({ db }, { rider_name }) =>
      queryAll(
        db,
        "SELECT r.*, c.name AS race_name, c.date AS race_date FROM results r JOIN races c ON c.id = r.race_id WHERE r.rider_id = ? ORDER BY c.date, r.id",
        byName(db, "riders", "name", rider_name).id,
      ),
  }),
  defineTool({
    name: "get_winner_of_race",
    description: "The winner of a race, given its name. Returns {race_name, rider_name, team_name, time_s, avg_speed_kmh}.",
    input: { race_name: name("race") },
    run: ({ db }, { race_name }) => {
      const race = byName(db, "races", "name", race_name);
      const row = queryAll(
        db,
        "SELECT p.name AS rider_name, t.name AS team_name, r.time_s, r.avg_speed_kmh FROM results r JOIN riders p ON p.id = r.rider_id JOIN teams t ON t.id = p.team_id WHERE r.race_id = ? AND r.position = 1",
        race.id,
      )[0];
      if (!row) throw new ToolError(`race ${JSON.stringify(race.name)} has no results`);
      return { race_name: race.name, ...row };
    },
  }),
  defineTool({
    name: "get_wins_by_team",
    description: "Races won by riders of a team, given the team's name. Returns [{race_name, date, rider_name}] ordered by date.",
    input: { team_name: name("team") },
    run: ({ db }, { team_name }) =>
      queryAll(
        db,
        "SELECT c.name AS race_name, c.date, p.name AS rider_name FROM results r JOIN riders p ON p.id = r.rider_id JOIN races c ON c.id = r.race_id WHERE r.position = 1 AND p.team_id = ? ORDER BY c.date, c.id",
        byName(db, "teams", "name", team_name).id,
      ),
  }),
];

export const joinEndpoints: Record<Domain, ToolSpec[]> = { harbor, library, velodrome };
