import { describe, expect, it } from "vitest";
import { isConfirmedAction, needsConfirmation, REVIEW_ACTIONS } from "@/lib/submissions/review";

describe("which review actions ask the maintainer first", () => {
  it("asks for reject and withdraw always, approve only on a flagged entry, rescore and restore never", () => {
    const asked = (flagged: boolean) => REVIEW_ACTIONS.filter((a) => needsConfirmation(a, flagged));
    expect(asked(false)).toEqual(["reject", "withdraw"]);
    expect(asked(true)).toEqual(["approve", "reject", "withdraw"]);
  });

  it("reads a confirmation request from the URL only for an action that has one", () => {
    expect(["reject", "withdraw", "approve"].every((a) => isConfirmedAction(a))).toBe(true);
    expect(["rescore", "restore", "", "Reject", undefined].some((a) => isConfirmedAction(a))).toBe(false);
  });
});
