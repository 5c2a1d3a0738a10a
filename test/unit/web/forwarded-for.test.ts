/** The lockout key behind a proxy: the entry the trusted proxy appended, not the client's own. */
import { afterEach, describe, expect, it } from "vitest";
import { clientKey } from "@/app/admin/auth";
import { addressKey, clientFromForwardedFor, trustedHopsFromEnv } from "@/app/admin/forwarded-for";

describe("clientFromForwardedFor", () => {
  it("takes the right-most entry: the one our proxy appended", () => {
    expect(clientFromForwardedFor("203.0.113.9")).toBe("203.0.113.9");
    expect(clientFromForwardedFor("1.1.1.1, 2.2.2.2, 198.51.100.7")).toBe("198.51.100.7");
  });

  it("ignores whatever the client put in front", () => {
    const keys = new Set(Array.from({ length: 50 }, (_, i) => clientFromForwardedFor(`10.0.0.${i}, 203.0.113.9`)));
    expect([...keys]).toEqual(["203.0.113.9"]);
  });

  it("counts trusted hops from the right", () => {
    expect(clientFromForwardedFor("6.6.6.6, 203.0.113.9, 10.0.0.2", 2)).toBe("203.0.113.9");
    expect(clientFromForwardedFor("10.0.0.2", 2)).toBeNull();
  });

  it("gives no key for an empty header or an entry that is no address", () => {
    expect(clientFromForwardedFor(null)).toBeNull();
    expect(clientFromForwardedFor("")).toBeNull();
    expect(clientFromForwardedFor(" , ")).toBeNull();
    expect(clientFromForwardedFor("1.2.3.4, unknown")).toBeNull();
    expect(clientFromForwardedFor("1.2.3.4, <script>")).toBeNull();
  });

  it("normalises ports, brackets and IPv6, grouping IPv6 by /64", () => {
    expect(addressKey("203.0.113.9:4711")).toBe("203.0.113.9");
    expect(addressKey("[2001:db8:1:2::5]:443")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:DB8:1:2:aaaa:bbbb:cccc:dddd")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8:1:2::ffff")).toBe(addressKey("2001:0db8:0001:0002:1:2:3:4"));
    expect(addressKey("2001:db8:1:3::1")).not.toBe(addressKey("2001:db8:1:2::1"));
    expect(addressKey("::ffff:198.51.100.7")).toBe("198.51.100.7");
    expect(addressKey("not an address")).toBeNull();
  });

  it("reads the hop count from the environment, within 1..10", () => {
    expect(trustedHopsFromEnv(undefined)).toBe(1);
    expect(trustedHopsFromEnv("2")).toBe(2);
    expect(trustedHopsFromEnv("0")).toBe(1);
    expect(trustedHopsFromEnv("x")).toBe(1);
  });
});

describe("clientKey", () => {
  const saved = { trust: process.env.AGENTBOARD_TRUST_PROXY, hops: process.env.AGENTBOARD_TRUSTED_PROXY_HOPS };
  afterEach(() => {
    process.env.AGENTBOARD_TRUST_PROXY = saved.trust;
    process.env.AGENTBOARD_TRUSTED_PROXY_HOPS = saved.hops;
    if (saved.trust === undefined) delete process.env.AGENTBOARD_TRUST_PROXY;
    if (saved.hops === undefined) delete process.env.AGENTBOARD_TRUSTED_PROXY_HOPS;
  });
  const req = (xff: string) => new Request("http://127.0.0.1/admin/login", { method: "POST", headers: { "x-forwarded-for": xff } });

  it("shares one key for every client when no proxy is trusted", () => {
    delete process.env.AGENTBOARD_TRUST_PROXY;
    expect(clientKey(req("1.2.3.4"))).toBe("direct");
  });

  it("behind a trusted proxy, keys on the proxy's entry whatever the client sends first", () => {
    process.env.AGENTBOARD_TRUST_PROXY = "1";
    expect(clientKey(req("9.9.9.9, 203.0.113.9"))).toBe("203.0.113.9");
    expect(clientKey(req("8.8.8.8, 203.0.113.9"))).toBe("203.0.113.9");
    expect(clientKey(req("garbage"))).toBe("direct");
  });
});
