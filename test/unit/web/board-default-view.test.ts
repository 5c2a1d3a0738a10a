/** The board's default view hides its optional columns; the URL says otherwise with `hide` (empty: none), and a download names what the view hides. */
import { describe, expect, it } from "vitest";
import { downloadHref } from "@/components/leaderboard/table-toolbar";
import { viewSearch } from "@/components/leaderboard/use-url-view";
import { BOARD_VIEW, DEFAULT_VIEW, isDefaultView, OPTIONAL_COLUMNS, parseView, queryString, serializeView } from "@/components/leaderboard/view-state";

const CAPS = ["api_chaining", "multiturn"];

describe("the board's default view", () => {
  it("hides the optional columns when the URL says nothing, and exactly what `hide` names when it does", () => {
    expect(parseView({}, CAPS, BOARD_VIEW).hide).toEqual(["tokens", "latency", "latency_p95", "coverage", "models", "maintainer", "date"]);
    expect(parseView({ hide: "" }, CAPS, BOARD_VIEW).hide).toEqual([]);
    expect(parseView({ hide: "date" }, CAPS, BOARD_VIEW).hide).toEqual(["date"]);
    // The export API's default hides nothing.
    expect(parseView({}, CAPS).hide).toEqual([]);
    expect(OPTIONAL_COLUMNS).not.toContain("badges");
    expect(OPTIONAL_COLUMNS).not.toContain("cost");
  });

  it("leaves the default out of the URL, and writes any other choice, none hidden as `hide=`", () => {
    expect(serializeView(BOARD_VIEW, BOARD_VIEW).toString()).toBe("");
    expect(isDefaultView(BOARD_VIEW, BOARD_VIEW)).toBe(true);
    const all = { ...BOARD_VIEW, hide: [] };
    expect(viewSearch("?benchmark=demo", all)).toBe("?benchmark=demo&hide=");
    expect(isDefaultView(all, BOARD_VIEW)).toBe(false);
    expect(parseView(new URLSearchParams(viewSearch("", all)), CAPS, BOARD_VIEW)).toEqual(all);
    const some = { ...BOARD_VIEW, hide: ["models", "date"] };
    expect(queryString(serializeView(some, BOARD_VIEW))).toBe("hide=models,date");
    expect(parseView(new URLSearchParams(queryString(serializeView(some, BOARD_VIEW))), CAPS, BOARD_VIEW)).toEqual(some);
  });

  it("downloads the columns on screen: the API is told what the board hides", () => {
    expect(downloadHref({ benchmark: "demo", version: "1.0" }, BOARD_VIEW, "csv")).toBe("/api/leaderboard?benchmark=demo&version=1.0&hide=tokens,latency,latency_p95,coverage,models,maintainer,date&format=csv");
    expect(downloadHref({ benchmark: "demo", version: "1.0" }, { ...BOARD_VIEW, hide: [] }, "json")).toBe("/api/leaderboard?benchmark=demo&version=1.0&format=json");
    expect(serializeView(DEFAULT_VIEW).toString()).toBe("");
  });
});
