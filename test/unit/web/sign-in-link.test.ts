/** Which addresses the main job prints a sign-in link for, and the server answers one on (scripts/server/sign-in-link.ts). */
import { describe, expect, it } from "vitest";
import { isLoopback, signInLink } from "@/scripts/server/sign-in-link";

describe("sign-in links", () => {
  it("are for loopback addresses only", () => {
    for (const host of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]", "LOCALHOST"]) expect(isLoopback(host), host).toBe(true);
    for (const host of ["0.0.0.0", "::", "192.168.1.10", "10.0.0.1", "example.org", "127.0.0.1.example.org", "128.0.0.1", "::ffff:10.0.0.1"]) expect(isLoopback(host), host).toBe(false);
  });

  it("carry the token encoded, to the sign-in path", () => {
    expect(signInLink("http://127.0.0.1:3000", "a+b/c=")).toBe("http://127.0.0.1:3000/admin/login?token=a%2Bb%2Fc%3D");
  });
});
