/** The grader port's pieces: the judge factory's precedence, the recorded judge, the grade cache, gradeSafely. */
import { describe, expect, it } from "vitest";
import { createCachedGrading, createMemoryGradeCache, type CachedGrade } from "@/lib/judges/grade-cache";
import { gradeSafely, passFail, scored, unjudged, type Grade, type GradeRequest, type Grader } from "@/lib/judges/grader";
import { createGrader, JudgeSettingsError, recordedJudge, resolveJudgeSettings, type JudgeSources } from "@/lib/judges/judge-settings";
import { deferred } from "../../helpers/deferred";

const OPENAI_CONFIG = { kind: "openai", model: "config-model", baseUrl: "http://config.example/v1", concurrency: 4 } as const;

/** The JudgeSettingsError a resolution throws, or a failure when it does not throw. */
function settingsError(sources: JudgeSources): JudgeSettingsError {
  try {
    const s = resolveJudgeSettings(sources);
    throw new Error(`expected a JudgeSettingsError, got ${JSON.stringify(s)}`);
  } catch (err) {
    if (err instanceof JudgeSettingsError) return err;
    throw err;
  }
}

describe("resolveJudgeSettings: precedence flags > env > config > defaults", () => {
  it("defaults to the rules judge at concurrency 16", () => {
    expect(resolveJudgeSettings({})).toEqual({ kind: "rules", concurrency: 16 });
  });

  it("takes the config over the defaults", () => {
    expect(resolveJudgeSettings({ config: OPENAI_CONFIG })).toEqual({ kind: "openai", model: "config-model", baseUrl: "http://config.example/v1", concurrency: 4 });
  });

  it("takes the environment over the config", () => {
    const env = { AGENTBOARD_JUDGE: "openai", AGENTBOARD_JUDGE_MODEL: "env-model", AGENTBOARD_JUDGE_BASE_URL: "http://env.example/v1", AGENTBOARD_JUDGE_CONCURRENCY: "8" };
    expect(resolveJudgeSettings({ env, config: { ...OPENAI_CONFIG, kind: "rules" } })).toEqual({ kind: "openai", model: "env-model", baseUrl: "http://env.example/v1", concurrency: 8 });
    expect(resolveJudgeSettings({ env: { AGENTBOARD_JUDGE: "rules" }, config: OPENAI_CONFIG })).toEqual({ kind: "rules", concurrency: 4 });
  });

  it("takes the flags over the environment", () => {
    const env = { AGENTBOARD_JUDGE: "rules", AGENTBOARD_JUDGE_MODEL: "env-model", AGENTBOARD_JUDGE_BASE_URL: "http://env.example/v1", AGENTBOARD_JUDGE_CONCURRENCY: "8" };
    const flags = { judge: "openai", judgeModel: "flag-model", judgeBaseUrl: "https://flag.example/v1", judgeConcurrency: "2" };
    expect(resolveJudgeSettings({ flags, env, config: OPENAI_CONFIG })).toEqual({ kind: "openai", model: "flag-model", baseUrl: "https://flag.example/v1", concurrency: 2 });
    expect(resolveJudgeSettings({ flags: { judge: "rules" }, env: { AGENTBOARD_JUDGE: "openai" }, config: OPENAI_CONFIG })).toEqual({ kind: "rules", concurrency: 4 });
  });

  it("treats an empty value as unset", () => {
    const s = resolveJudgeSettings({ flags: { judgeModel: "" }, env: { AGENTBOARD_JUDGE_MODEL: "", AGENTBOARD_JUDGE_BASE_URL: "" }, config: OPENAI_CONFIG });
    expect(s).toMatchObject({ model: "config-model", baseUrl: "http://config.example/v1" });
  });

  it("reads OPENAI_BASE_URL after AGENTBOARD_JUDGE_BASE_URL, and either over the config", () => {
    expect(resolveJudgeSettings({ env: { OPENAI_BASE_URL: "http://openai.example/v1" }, config: OPENAI_CONFIG }).baseUrl).toBe("http://openai.example/v1");
    expect(resolveJudgeSettings({ env: { OPENAI_BASE_URL: "http://openai.example/v1", AGENTBOARD_JUDGE_BASE_URL: "http://ab.example/v1" }, config: OPENAI_CONFIG }).baseUrl).toBe("http://ab.example/v1");
  });

  it("reads the key from AGENTBOARD_JUDGE_API_KEY over OPENAI_API_KEY, and from the variable a config names", () => {
    expect(resolveJudgeSettings({ env: { AGENTBOARD_JUDGE_API_KEY: "sk-ab", OPENAI_API_KEY: "sk-openai" }, config: OPENAI_CONFIG }).apiKey).toBe("sk-ab");
    expect(resolveJudgeSettings({ env: { OPENAI_API_KEY: "sk-openai" }, config: OPENAI_CONFIG }).apiKey).toBe("sk-openai");
    expect(resolveJudgeSettings({ config: OPENAI_CONFIG })).not.toHaveProperty("apiKey");
    const named = resolveJudgeSettings({ env: { MY_JUDGE_KEY: "sk-named", AGENTBOARD_JUDGE_API_KEY: "sk-ab" }, config: { ...OPENAI_CONFIG, apiKeyEnv: "MY_JUDGE_KEY" } });
    expect(named.apiKey).toBe("sk-named");
    expect(settingsError({ env: { AGENTBOARD_JUDGE_API_KEY: "sk-ab" }, config: { ...OPENAI_CONFIG, apiKeyEnv: "MY_JUDGE_KEY" } }).message).toBe(
      "the judge reads its API key from $MY_JUDGE_KEY, which is not set",
    );
  });

  it("gives the rules judge no endpoint, model or key", () => {
    const env = { AGENTBOARD_JUDGE_MODEL: "m", AGENTBOARD_JUDGE_BASE_URL: "http://x/v1", AGENTBOARD_JUDGE_API_KEY: "sk-1" };
    expect(resolveJudgeSettings({ env, config: { kind: "rules" } })).toEqual({ kind: "rules", concurrency: 16 });
  });
});

describe("resolveJudgeSettings: errors name where to set the value", () => {
  it("refuses an unknown kind", () => {
    const err = settingsError({ flags: { judge: "claude" } });
    expect(err.name).toBe("JudgeSettingsError");
    expect(err.message).toBe('the judge must be "rules", "literal", "openai", "verdicts" or "panel", got "claude" (--judge, AGENTBOARD_JUDGE or the config\'s judge.kind)');
    expect(settingsError({ env: { AGENTBOARD_JUDGE: "OpenAI" } }).message).toContain('got "OpenAI"');
  });

  it("needs a verdict file for the verdicts judge, given as a flag", () => {
    expect(settingsError({ flags: { judge: "verdicts" } }).message).toBe("the verdicts judge needs the exported verdicts to answer from: --judge-verdicts <file>");
    expect(resolveJudgeSettings({ flags: { judge: "verdicts", judgeVerdicts: "v.json" } })).toEqual({ kind: "verdicts", concurrency: 16, verdictsFile: "v.json" });
  });

  it("needs a base URL and a model for the openai judge", () => {
    expect(settingsError({ flags: { judge: "openai", judgeModel: "m" } }).message).toBe(
      "the openai judge needs a base URL: --judge-base-url, AGENTBOARD_JUDGE_BASE_URL, OPENAI_BASE_URL or the config's judge.baseUrl",
    );
    expect(settingsError({ flags: { judge: "openai", judgeBaseUrl: "http://x/v1" } }).message).toBe("the openai judge needs a model: --judge-model, AGENTBOARD_JUDGE_MODEL or the config's judge.model");
    expect(settingsError({ flags: { judge: "openai", judgeModel: "m", judgeBaseUrl: "ftp://x" } }).message).toBe('the judge\'s base URL must be an http(s) URL, got "ftp://x"');
  });

  it.each([["0"], ["257"], ["1.5"], ["many"], [-3]])("refuses the concurrency %j", (value) => {
    expect(settingsError({ flags: { judgeConcurrency: value } }).message).toBe(
      `the judge's concurrency must be an integer from 1 to 256, got "${value}" (--judge-concurrency, AGENTBOARD_JUDGE_CONCURRENCY or judge.concurrency)`,
    );
  });

  it("checks a concurrency from the environment too", () => {
    expect(settingsError({ env: { AGENTBOARD_JUDGE_CONCURRENCY: "0" }, config: { concurrency: 4 } }).message).toContain('got "0"');
  });
});

describe("recordedJudge and createGrader", () => {
  it("records everything but the key", () => {
    const s = resolveJudgeSettings({ env: { AGENTBOARD_JUDGE_API_KEY: "sk-very-secret" }, config: OPENAI_CONFIG });
    expect(s.apiKey).toBe("sk-very-secret");
    const r = recordedJudge(s);
    expect(r).toEqual({ id: "openai:config-model", kind: "openai", model: "config-model", baseUrl: "http://config.example/v1", concurrency: 4 });
    expect(JSON.stringify(r)).not.toContain("sk-very-secret");
    expect(recordedJudge(resolveJudgeSettings({}))).toEqual({ id: "rules", kind: "rules", model: null, baseUrl: null, concurrency: 16 });
  });

  it("makes the grader the settings name", () => {
    expect(createGrader(resolveJudgeSettings({}))).toMatchObject({ id: "rules", readsPrompts: false });
    expect(createGrader(resolveJudgeSettings({ config: OPENAI_CONFIG }))).toMatchObject({ id: "openai:config-model", readsPrompts: true });
  });
});

/** A computation the test finishes by hand: no timers. */

const stored = (g: Grade): CachedGrade => {
  const { cacheHit: _c, ...rest } = g;
  return { ...rest, promptHash: "p" };
};

describe("createCachedGrading", () => {
  it("shares one computation among concurrent misses of a key, and stores its grade once", async () => {
    const cache = createMemoryGradeCache();
    const cached = createCachedGrading(cache);
    const pending = deferred<CachedGrade>();
    let computed = 0;
    const compute = () => {
      computed++;
      return pending.promise;
    };
    const first = cached("k", compute);
    const second = cached("k", compute);
    // Let both callers look in the cache and meet the same in-flight computation.
    await Promise.resolve();
    await Promise.resolve();
    pending.resolve(stored(scored(0.8, "graded 0.80", "close")));
    const [a, b] = await Promise.all([first, second]);
    expect(computed).toBe(1);
    expect(a).toMatchObject({ outcome: "scored", score: 0.8, detail: "close", cacheHit: false });
    // The second caller cost no call of its own.
    expect(b).toMatchObject({ outcome: "scored", score: 0.8, detail: "close", cacheHit: true });
    expect(cache.size()).toBe(1);
    expect(await cache.get("k")).toEqual(stored(scored(0.8, "graded 0.80", "close")));
  });

  it("answers a stored key from the cache and says so", async () => {
    const cache = createMemoryGradeCache();
    await cache.set("k", stored(passFail(true, "judged correct")));
    let computed = 0;
    const g = await createCachedGrading(cache)("k", async () => {
      computed++;
      return stored(passFail(false, "judged incorrect"));
    });
    expect(computed).toBe(0);
    expect(g).toEqual({ ...stored(passFail(true, "judged correct")), cacheHit: true });
  });

  it("never stores an unjudged grade, so the next call tries again", async () => {
    const cache = createMemoryGradeCache();
    const cached = createCachedGrading(cache);
    let computed = 0;
    const compute = async () => (++computed === 1 ? stored(unjudged("the judge gave no usable reply", "HTTP 503")) : stored(scored(0.5, "graded 0.50")));
    expect(await cached("k", compute)).toMatchObject({ outcome: "unjudged", score: null, cacheHit: false });
    expect(cache.size()).toBe(0);
    expect(await cached("k", compute)).toMatchObject({ outcome: "scored", score: 0.5, cacheHit: false });
    expect(computed).toBe(2);
    expect(cache.size()).toBe(1);
  });

  it("keeps different keys apart", async () => {
    const cache = createMemoryGradeCache();
    const cached = createCachedGrading(cache);
    await cached("a", async () => stored(scored(0.1, "a")));
    expect(await cached("b", async () => stored(scored(0.9, "b")))).toMatchObject({ score: 0.9, cacheHit: false });
    expect(cache.size()).toBe(2);
  });
});

describe("gradeSafely", () => {
  const req: GradeRequest = { kind: "qa", messages: [], facts: { answer: "3", reference: "4" } };
  const throwing = (thrown: unknown): Grader => ({
    id: "openai:m",
    readsPrompts: true,
    grade: async () => {
      throw thrown;
    },
  });

  it("turns a throwing grader into an unjudged grade, its message only in the private detail", async () => {
    const g = await gradeSafely(throwing(new Error("prompt quoted: the reference is 4")), req);
    expect(g).toEqual({ outcome: "unjudged", score: null, reason: "the openai:m judge failed", detail: "prompt quoted: the reference is 4", promptHash: null, cacheHit: false });
    expect(g.reason).not.toContain("reference is 4");
    expect((await gradeSafely(throwing("plain text"), req)).detail).toBe("plain text");
  });

  it("passes a grade through unchanged", async () => {
    const grade: Grade = { ...scored(0.25, "graded 0.25", "one fact of four"), promptHash: "h", cacheHit: true };
    const grader: Grader = { id: "x", readsPrompts: true, grade: async () => grade };
    expect(await gradeSafely(grader, req)).toBe(grade);
  });
});
