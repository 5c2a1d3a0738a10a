/** downloadBundle against a real local HTTP server, with DNS answers injected per test. */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DownloadError,
  downloadBundle,
  forbiddenAddressReason,
  isHostAllowed,
  parseHostAllowlist,
  type DownloadErrorCode,
  type DownloadOptions,
  type ResolveHost,
  type ResolvedAddress,
} from "../../lib/github/download-bundle";
import { startFakeFileServer, type FakeFileServer } from "../helpers/fake-file-server";

let files: FakeFileServer;
const BUNDLE = Buffer.from(Array.from({ length: 50_000 }, (_, i) => (i * 7) % 256));

beforeAll(async () => {
  files = await startFakeFileServer();
  files.serve("/bundle.zip", BUNDLE);
  files.serve("/chunked.zip", BUNDLE, { contentLength: false });
  files.serve("/missing.zip", "gone", { status: 404 });
});

afterAll(async () => {
  await files.close();
});

/** A lookup that answers from a table and counts its calls; unknown names fail like DNS. */
function fakeDns(table: Record<string, string | string[]>): ResolveHost & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (host: string): Promise<ResolvedAddress[]> => {
    calls.push(host);
    const answer = table[host];
    if (answer === undefined) throw new Error(`getaddrinfo ENOTFOUND ${host}`);
    return [answer].flat().map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return Object.assign(lookup, { calls });
}

const local = (over: Partial<DownloadOptions> = {}): DownloadOptions => ({
  allowedHosts: ["127.0.0.1", "localhost", "bundles.test"],
  maxBytes: 1_000_000,
  timeoutMs: 5_000,
  allowLoopbackHttp: true,
  lookup: fakeDns({ localhost: "127.0.0.1", "bundles.test": "127.0.0.1" }),
  ...over,
});

/** Public-internet settings: https only, real rules, DNS injected. */
const remote = (lookup: ResolveHost, over: Partial<DownloadOptions> = {}): DownloadOptions => ({
  allowedHosts: ["github.com", "*.githubusercontent.com", "files.example.com"],
  maxBytes: 1_000_000,
  timeoutMs: 5_000,
  lookup,
  ...over,
});

async function failure(p: Promise<unknown>): Promise<DownloadError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof DownloadError)) throw new Error(`expected a DownloadError, got ${String(err)}`);
  return err;
}

async function expectCode(p: Promise<unknown>, code: DownloadErrorCode, message?: RegExp): Promise<DownloadError> {
  const err = await failure(p);
  expect(err.code, err.message).toBe(code);
  if (message) expect(err.message).toMatch(message);
  return err;
}

describe("a successful download", () => {
  it("returns the bytes, their sha256, size and the final URL", async () => {
    const result = await downloadBundle(files.url("/bundle.zip"), local());
    expect(result.bytes.equals(BUNDLE)).toBe(true);
    expect(result.size).toBe(BUNDLE.length);
    expect(result.sha256).toBe(createHash("sha256").update(BUNDLE).digest("hex"));
    expect(result.finalUrl).toBe(files.url("/bundle.zip"));
  });

  it("reads a chunked body without Content-Length", async () => {
    const result = await downloadBundle(files.url("/chunked.zip"), local());
    expect(result.sha256).toBe(createHash("sha256").update(BUNDLE).digest("hex"));
  });

  it("connects to the address it checked, asking DNS once per hop (no rebinding gap)", async () => {
    // A rebinding resolver: harmless the first time, internal on every later ask.
    const calls: string[] = [];
    const rebinding: ResolveHost = async (host) => {
      calls.push(host);
      return [{ address: calls.length === 1 ? "127.0.0.1" : "10.0.0.1", family: 4 }];
    };
    const result = await downloadBundle(files.url("/bundle.zip", "bundles.test"), local({ lookup: rebinding }));
    expect(result.size).toBe(BUNDLE.length);
    expect(calls).toEqual(["bundles.test"]);
    expect(files.requests.at(-1)?.host).toBe(`bundles.test:${files.port}`);
  });

  it("follows up to three redirects, relative and absolute, and reports the final URL", async () => {
    files.redirect("/r3", "/r2", 301);
    files.redirect("/r2", files.url("/r1", "localhost"), 307);
    files.redirect("/r1", "/bundle.zip", 308);
    const result = await downloadBundle(files.url("/r3"), local());
    expect(result.finalUrl).toBe(files.url("/bundle.zip", "localhost"));
    expect(result.bytes.equals(BUNDLE)).toBe(true);
  });

  it("accepts a body of exactly the cap", async () => {
    files.stream("/exact", { totalBytes: 200_000, declaredLength: 200_000 });
    expect((await downloadBundle(files.url("/exact"), local({ maxBytes: 200_000 }))).size).toBe(200_000);
  });
});

describe("scheme and host rules", () => {
  it("refuses http without the test switch", async () => {
    await expectCode(downloadBundle(files.url("/bundle.zip"), local({ allowLoopbackHttp: false })), "scheme", /expected https/);
  });

  it.each(["ftp://files.example.com/b.zip", "file:///etc/passwd", "gopher://files.example.com/", "not a url"])("refuses %s", async (url) => {
    const dns = fakeDns({ "files.example.com": "93.184.216.34" });
    await expectCode(downloadBundle(url, remote(dns)), "scheme");
    expect(dns.calls).toEqual([]);
  });

  it("refuses credentials in the URL", async () => {
    await expectCode(downloadBundle("https://user:pw@files.example.com/b.zip", remote(fakeDns({}))), "scheme", /credentials/);
  });

  it("under the switch, allows http only to loopback addresses", async () => {
    const dns = fakeDns({ "bundles.test": "93.184.216.34" });
    await expectCode(downloadBundle("http://bundles.test/b.zip", local({ lookup: dns })), "scheme", /only to loopback/);
  });

  it("refuses a host off the allowlist before resolving it", async () => {
    const dns = fakeDns({ "evil.example": "93.184.216.34" });
    await expectCode(downloadBundle("https://evil.example/b.zip", remote(dns)), "host_not_allowed", /evil\.example is not on the bundle host allowlist/);
    expect(dns.calls).toEqual([]);
  });

  it("matches exact hosts and *.suffix patterns", () => {
    const allow = ["github.com", "*.githubusercontent.com"];
    expect(isHostAllowed("github.com", allow)).toBe(true);
    expect(isHostAllowed("GitHub.com.", allow)).toBe(true);
    expect(isHostAllowed("objects.githubusercontent.com", allow)).toBe(true);
    expect(isHostAllowed("a.b.githubusercontent.com", allow)).toBe(true);
    expect(isHostAllowed("githubusercontent.com", allow)).toBe(false);
    expect(isHostAllowed("evilgithubusercontent.com", allow)).toBe(false);
    expect(isHostAllowed("api.github.com", allow)).toBe(false);
    expect(isHostAllowed("github.com.evil.example", allow)).toBe(false);
    expect(isHostAllowed("anything", [])).toBe(false);
  });

  it("parses an allowlist from configuration text", () => {
    expect(parseHostAllowlist(" github.com, *.GitHubUserContent.com\nzenodo.org ,,")).toEqual(["github.com", "*.githubusercontent.com", "zenodo.org"]);
  });
});

describe("address rules", () => {
  it.each([
    ["10.0.0.1", /private address \(10\.0\.0\.0\/8\)/],
    ["172.16.5.4", /private address \(172\.16\.0\.0\/12\)/],
    ["192.168.1.1", /private address \(192\.168\.0\.0\/16\)/],
    ["169.254.169.254", /link-local/],
    ["100.64.0.1", /carrier-grade NAT/],
    ["127.0.0.1", /loopback/],
    ["0.0.0.0", /this network/],
    ["::1", /loopback/],
    ["::", /unspecified/],
    ["fd00::1", /unique local/],
    ["fc12:3456::1", /unique local/],
    ["fe80::1", /link-local/],
    ["::ffff:127.0.0.1", /IPv4-mapped/],
    ["::ffff:10.0.0.1", /IPv4-mapped/],
    ["::ffff:8.8.8.8", /IPv4-mapped/],
    ["64:ff9b::a9fe:a9fe", /NAT64 address embedding a link-local/],
    ["2002:c0a8:0101::1", /6to4 address embedding a private/],
    ["224.0.0.1", /multicast/],
    ["255.255.255.255", /broadcast/],
  ])("refuses a host resolving to %s", async (address, reason) => {
    const dns = fakeDns({ "files.example.com": address });
    const err = await expectCode(downloadBundle("https://files.example.com/b.zip", remote(dns)), "private_address", reason);
    expect(err.message).toContain(`files.example.com resolves to ${address}`);
  });

  it("refuses when any one of several addresses is private", async () => {
    const dns = fakeDns({ "files.example.com": ["93.184.216.34", "10.1.2.3"] });
    await expectCode(downloadBundle("https://files.example.com/b.zip", remote(dns)), "private_address", /10\.1\.2\.3/);
  });

  it("refuses private IP literals in the URL", async () => {
    const allow = { allowedHosts: ["169.254.169.254", "::1", "127.0.0.1"] };
    await expectCode(downloadBundle("https://169.254.169.254/latest/meta-data/", remote(fakeDns({}), allow)), "private_address", /link-local/);
    await expectCode(downloadBundle("https://[::1]/b.zip", remote(fakeDns({}), allow)), "private_address", /loopback/);
    // 2130706433 is 127.0.0.1 written as one number; the URL parser normalises it.
    await expectCode(downloadBundle("https://2130706433/b.zip", remote(fakeDns({}), allow)), "private_address", /loopback/);
  });

  it("refuses loopback without the test switch, even over https", async () => {
    await expectCode(downloadBundle("https://localhost/b.zip", remote(fakeDns({ localhost: "127.0.0.1" }), { allowedHosts: ["localhost"] })), "private_address", /loopback/);
  });

  it("under the test switch allows loopback but nothing else private", async () => {
    const dns = fakeDns({ "bundles.test": "10.0.0.1" });
    await expectCode(downloadBundle(files.url("/bundle.zip", "bundles.test"), local({ lookup: dns })), "private_address", /10\.0\.0\.1/);
  });

  it("names public addresses harmless", () => {
    for (const ip of ["8.8.8.8", "93.184.216.34", "2606:4700:4700::1111", "64:ff9b::808:808", "2002:0808:0808::1", "100.128.0.1", "172.32.0.1"]) {
      expect(forbiddenAddressReason(ip), ip).toBeUndefined();
    }
    expect(forbiddenAddressReason("not-an-ip")).toBe("not an IP address");
    expect(forbiddenAddressReason("127.0.0.1", { allowLoopback: true })).toBeUndefined();
    expect(forbiddenAddressReason("::ffff:127.0.0.1", { allowLoopback: true })).toMatch(/IPv4-mapped/);
  });

  it("reports a name that does not resolve as a network error", async () => {
    await expectCode(downloadBundle("https://files.example.com/b.zip", remote(fakeDns({}))), "network", /could not resolve files\.example\.com/);
  });
});

describe("redirect rules", () => {
  it("checks every hop: a redirect chain ending at a private address is refused", async () => {
    files.redirect("/chain-a", "/chain-b");
    files.redirectToPrivate("/chain-b", "169.254.169.254");
    const before = files.requests.length;
    await expectCode(
      downloadBundle(files.url("/chain-a"), local({ allowedHosts: ["127.0.0.1", "169.254.169.254"] })),
      "private_address",
      /169\.254\.169\.254.*link-local/,
    );
    expect(files.requests.slice(before).map((r) => r.path)).toEqual(["/chain-a", "/chain-b"]);
  });

  it("re-resolves a redirect's host and refuses a private answer", async () => {
    files.redirect("/to-internal", `http://internal.test:${files.port}/bundle.zip`);
    const dns = fakeDns({ "internal.test": "192.168.0.10" });
    await expectCode(downloadBundle(files.url("/to-internal"), local({ allowedHosts: ["127.0.0.1", "internal.test"], lookup: dns })), "private_address", /192\.168\.0\.10/);
    expect(dns.calls).toEqual(["internal.test"]);
  });

  it("refuses a redirect to a host off the allowlist", async () => {
    files.redirect("/to-elsewhere", "https://elsewhere.example/b.zip");
    await expectCode(downloadBundle(files.url("/to-elsewhere"), local()), "host_not_allowed", /elsewhere\.example/);
  });

  it("re-checks the scheme of a redirect target: http to a public address is refused", async () => {
    files.redirect("/to-public-http", "http://files.example.com/b.zip");
    const dns = fakeDns({ "files.example.com": "93.184.216.34" });
    const err = await expectCode(
      downloadBundle(files.url("/to-public-http"), local({ allowedHosts: ["127.0.0.1", "files.example.com"], lookup: dns })),
      "scheme",
      /only to loopback/,
    );
    expect(err.url).toBe("http://files.example.com/b.zip");
  });

  it("refuses a fourth redirect", async () => {
    files.redirect("/h4", "/h3");
    files.redirect("/h3", "/h2");
    files.redirect("/h2", "/h1");
    files.redirect("/h1", "/bundle.zip");
    await expectCode(downloadBundle(files.url("/h4"), local()), "too_many_redirects", /more than 3 redirects/);
    expect((await downloadBundle(files.url("/h3"), local())).size).toBe(BUNDLE.length);
  });

  it("treats a redirect loop as too many redirects", async () => {
    files.redirect("/loop", "/loop");
    await expectCode(downloadBundle(files.url("/loop"), local()), "too_many_redirects");
  });
});

describe("size, status and time limits", () => {
  it("refuses a declared Content-Length over the cap before reading the body", async () => {
    files.serve("/big-declared", Buffer.alloc(300_000));
    await expectCode(downloadBundle(files.url("/big-declared"), local({ maxBytes: 100_000 })), "too_large", /Content-Length 300000 exceeds the limit of 100000 bytes/);
  });

  it("aborts an endless stream without Content-Length as soon as it passes the cap", async () => {
    files.stream("/endless");
    await expectCode(downloadBundle(files.url("/endless"), local({ maxBytes: 1_000_000 })), "too_large", /the body exceeds the limit of 1000000 bytes/);
    // Give the server a moment to notice the closed socket, then check it stopped early.
    await new Promise((r) => setTimeout(r, 100));
    const sent = files.bytesSent("/endless");
    await new Promise((r) => setTimeout(r, 200));
    expect(files.bytesSent("/endless")).toBe(sent);
    expect(sent).toBeLessThan(50_000_000);
  });

  it("refuses one byte over the cap", async () => {
    files.stream("/cap-plus-one", { totalBytes: 200_001 });
    await expectCode(downloadBundle(files.url("/cap-plus-one"), local({ maxBytes: 200_000 })), "too_large");
  });

  it("reports an error status", async () => {
    const err = await expectCode(downloadBundle(files.url("/missing.zip"), local()), "http_status", /HTTP 404/);
    expect(err.status).toBe(404);
  });

  it("times out on a server that trickles the body", async () => {
    files.stream("/slow", { chunkBytes: 10, intervalMs: 50, totalBytes: 10_000 });
    await expectCode(downloadBundle(files.url("/slow"), local({ timeoutMs: 300 })), "timeout", /within 300 ms/);
    // A total deadline, not an idle one: it gave up mid-body, though bytes kept arriving.
    expect(files.bytesSent("/slow")).toBeGreaterThan(0);
    expect(files.bytesSent("/slow")).toBeLessThan(10_000);
  });

  it("times out on a server that never answers", async () => {
    files.hang("/hang");
    await expectCode(downloadBundle(files.url("/hang"), local({ timeoutMs: 200 })), "timeout");
  });

  it("times out on a lookup that never returns", async () => {
    const stuck: ResolveHost = () => new Promise(() => undefined);
    await expectCode(downloadBundle("https://files.example.com/b.zip", remote(stuck, { timeoutMs: 200 })), "timeout");
  });

  it("reports a refused connection as a network error", async () => {
    const closed = await startFakeFileServer();
    const url = closed.url("/x");
    await closed.close();
    await expectCode(downloadBundle(url, local()), "network");
  });

  it("stops when the caller aborts", async () => {
    files.hang("/hang-abort");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await expectCode(downloadBundle(files.url("/hang-abort"), local({ signal: controller.signal })), "network", /aborted/);
  });
});
