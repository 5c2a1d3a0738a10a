/**
 * What an item fingerprint treats as the same (issue 26, item 2): invisible characters, edge
 * punctuation and quotes, case, whitespace, Unicode compatibility forms, a tool call repeated
 * back to back. And what it must keep apart, so that genuinely different agents never look
 * like copies: signs, decimal points, units, percent signs, brackets, inner punctuation,
 * argument values and types, calls in another order.
 */
import { describe, expect, it } from "vitest";
import type { PredictedDialogue, Turn } from "@/lib/formats/dialogue";
import { JsonNumber } from "@/lib/formats/lossless-json";
import { callsKey, dialogueFingerprint, FINGERPRINT_PREFIX, foldText, textKey } from "@/lib/scoring/item-fingerprint";

const turn = (answer: Turn["answer"], calls: Turn["calls"] = []): Turn => ({ turnId: 0, query: "q", answer, calls });
const fp = (answer: Turn["answer"], calls: Turn["calls"] = []) => dialogueFingerprint("c", "u1", { uuid: "u1", domain: "d", status: "success", error: "", durationS: null, turns: [turn(answer, calls)] } satisfies PredictedDialogue);
const call = (name: string, args: Record<string, unknown> = {}) => ({ name, arguments: args });

describe("text as a fingerprint compares it", () => {
  it.each([
    ["zero-width space appended", "Ocean Queen.\u200b"],
    ["zero-width joiner and non-joiner inside", "Oce\u200dan Qu\u200ceen."],
    ["byte-order mark and word joiner", "\ufeffOcean\u2060 Queen."],
    ["soft hyphen", "Oce\u00adan Queen."],
    ["bidi marks", "\u200eOcean Queen\u200f."],
    ["variation selector", "Ocean Queen\ufe0f."],
    ["control characters", "Ocean\u0001 Queen\u007f."],
    ["trailing period removed", "Ocean Queen"],
    ["other sentence punctuation", "Ocean Queen!?"],
    ["quoted", "\u201cOcean Queen.\u201d"],
    ["case and spacing", "  OCEAN\u00a0\t queen .  "],
    ["compatibility forms", "Ｏｃｅａｎ Ｑｕｅｅｎ。"],
  ])("read the same with %s", (_, variant) => {
    expect(textKey(variant)).toBe("ocean queen");
    expect(fp(variant)).toBe(fp("Ocean Queen."));
  });

  it("fold case fully: ß and SS, final sigma", () => {
    expect(textKey("STRASSE")).toBe(textKey("Straße"));
    expect(foldText("ΟΔΟΣ")).toBe(foldText("οδος"));
  });

  it.each([
    ["-5", "5"],
    [".5", "5"],
    ["5%", "5"],
    ["(5)", "5"],
    ["5 ships", "5"],
    ["1,000", "1000"],
    ["1.5", "15"],
    ["$5", "5"],
    ["5-", "5"],
    ["Ocean Queen II", "Ocean Queen"],
    ["no", "yes"],
  ])("keep %j apart from %j", (a, b) => {
    expect(textKey(a)).not.toBe(textKey(b));
    expect(fp(a)).not.toBe(fp(b));
  });
});

describe("tool calls as a fingerprint compares them", () => {
  it("count a call repeated back to back once, anywhere in the turn", () => {
    const a = call("get_ship", { name: "Blue Heron" });
    const b = call("count_data", { data_label: "x" });
    expect(callsKey([a, a, b])).toBe(callsKey([a, b]));
    expect(callsKey([a, b, b, b])).toBe(callsKey([a, b]));
    expect(fp("7", [a, a, b])).toBe(fp("7", [a, b]));
  });

  it("keep a call repeated after another, and calls in another order", () => {
    const a = call("get_ship");
    const b = call("count_data");
    expect(callsKey([a, b, a])).not.toBe(callsKey([a, b]));
    expect(callsKey([b, a])).not.toBe(callsKey([a, b]));
  });

  it("read names and string arguments (keys too) as text, and argument order not at all", () => {
    expect(callsKey([call("get_ship\u200b", { Name: "Blue Heron.\u200b", port: "North" })])).toBe(callsKey([call("GET_SHIP", { port: "north", name: "blue heron" })]));
  });

  it("compare numbers by value, a lossless one too", () => {
    expect(callsKey([call("get", { x: new JsonNumber("25.0") })])).toBe(callsKey([call("get", { x: 25 })]));
    expect(callsKey([call("get", { x: new JsonNumber("25.5") })])).not.toBe(callsKey([call("get", { x: 25 })]));
  });

  it("keep different argument values and types apart", () => {
    expect(callsKey([call("get", { year: "2020" })])).not.toBe(callsKey([call("get", { year: "2021" })]));
    expect(callsKey([call("get", { year: "2020" })])).not.toBe(callsKey([call("get", { year: 2020 })]));
    expect(callsKey([call("get", { delta: "-5" })])).not.toBe(callsKey([call("get", { delta: "5" })]));
    expect(callsKey([call("get", { ids: [1, 2] })])).not.toBe(callsKey([call("get", { ids: [2, 1] })]));
  });
});

describe("fingerprint versions", () => {
  it("mark every fingerprint with the current version, so one stored by an older version never equals it", () => {
    expect(FINGERPRINT_PREFIX).toBe("v2:");
    expect(fp("Ocean Queen.")).toMatch(/^v2:[0-9a-f]{32}$/);
  });
});
