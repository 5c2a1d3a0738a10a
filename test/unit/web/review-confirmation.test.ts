import { describe, expect, it } from "vitest";
import { isConfirmedAction, needsConfirmation, REVIEW_ACTIONS } from "@/lib/submissions/review";

describe("which review actions ask the maintainer first", () => {
  it("asks for reject, rescore and withdraw always, approve only on a flagged entry, restore never", () => {
    const asked = (flagged: boolean) => REVIEW_ACTIONS.filter((a) => needsConfirmation(a, flagged));
    expect(asked(false)).toEqual(["reject", "rescore", "withdraw"]);
    expect(asked(true)).toEqual(["approve", "reject", "rescore", "withdraw"]);
  });

  it("reads a confirmation request from the URL only for an action that has one", () => {
    expect(["reject", "withdraw", "approve", "rescore"].every((a) => isConfirmedAction(a))).toBe(true);
    expect(["restore", "", "Reject", "Rescore", undefined].some((a) => isConfirmedAction(a))).toBe(false);
  });
});
