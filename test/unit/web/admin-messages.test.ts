/** /admin shows fixed words for the codes in its URL, never the URL's own text. */
import { describe, expect, it } from "vitest";
import { ADMIN_ERRORS, adminDoneMessage, adminErrorMessage } from "@/app/admin/messages";

describe("adminErrorMessage", () => {
  it("maps every known code to its fixed message", () => {
    for (const [code, text] of Object.entries(ADMIN_ERRORS)) expect(adminErrorMessage(code)).toBe(text);
  });

  it("answers prototype keys and arbitrary text with the generic message, as a string", () => {
    const generic = adminErrorMessage("no-such-code");
    expect(typeof generic).toBe("string");
    expect(generic).not.toContain("no-such-code");
    for (const code of ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "Call +1-555 now: your account is locked", "<b>x</b>"]) {
      const m = adminErrorMessage(code);
      expect(typeof m, code).toBe("string");
      expect(m, code).toBe(generic);
    }
  });

  it("shows nothing without a code", () => {
    expect(adminErrorMessage(undefined)).toBeNull();
    expect(adminErrorMessage("")).toBeNull();
  });
});

describe("adminDoneMessage", () => {
  it("accepts an action on a numbered submission", () => {
    expect(adminDoneMessage("approve #12")).toBe("approve #12");
    expect(adminDoneMessage("withdraw #3")).toBe("withdraw #3");
    expect(adminDoneMessage("restore #3")).toBe("restore #3");
  });

  it("refuses any other text", () => {
    for (const done of ["approve #12 and visit evil.example", "hacked #1", "approve #", "__proto__", "approve #1\nx"]) expect(adminDoneMessage(done), done).toBeNull();
    expect(adminDoneMessage(undefined)).toBeNull();
  });
});
