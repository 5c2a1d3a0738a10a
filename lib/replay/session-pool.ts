/**
 * A bounded pool of tool-server sessions keyed by (capability, domain). At most `size`
 * sessions exist at once and at most `perKey` for one key (starting a server costs far
 * more than waiting for a busy one of the same key); an idle session of another key is
 * closed to make room, and callers wait in order otherwise.
 */
import type { ToolSession } from "./mcp-session";

export class SessionPool {
  private readonly idle = new Map<string, ToolSession[]>();
  private total = 0;
  private readonly perKeyCount = new Map<string, number>();
  private readonly waiting: (() => void)[] = [];
  private closed = false;

  constructor(
    private readonly size: number,
    private readonly open: (key: string) => Promise<ToolSession>,
    private readonly perKey = size,
  ) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`pool size must be a positive integer, got ${size}`);
    if (!Number.isInteger(perKey) || perKey < 1) throw new RangeError(`sessions per key must be a positive integer, got ${perKey}`);
  }

  /** Sessions started so far (for progress and tests). */
  started = 0;

  async acquire(key: string): Promise<ToolSession> {
    for (;;) {
      if (this.closed) throw new Error("the session pool is closed");
      const mine = this.idle.get(key);
      while (mine?.length) {
        const s = mine.pop()!;
        if (s.alive) return s;
        this.forget(key);
      }
      const ofKey = this.perKeyCount.get(key) ?? 0;
      if (ofKey < this.perKey && (this.total < this.size || this.evictOther())) {
        this.total++;
        this.perKeyCount.set(key, ofKey + 1);
        try {
          const s = await this.open(key);
          this.started++;
          return s;
        } catch (err) {
          this.forget(key);
          this.wake();
          throw err;
        }
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  /** Returns a session; one that is dead or not reusable is closed. */
  release(key: string, session: ToolSession, reusable: boolean): void {
    if (reusable && session.alive && !this.closed) {
      const list = this.idle.get(key) ?? [];
      list.push(session);
      this.idle.set(key, list);
    } else {
      this.forget(key);
      void session.close();
    }
    this.wake();
  }

  private forget(key: string): void {
    this.total--;
    this.perKeyCount.set(key, (this.perKeyCount.get(key) ?? 1) - 1);
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.idle].flatMap(([key, list]) => list.map((s) => ({ key, s })));
    this.idle.clear();
    for (const { key } of all) this.forget(key);
    await Promise.all(all.map(({ s }) => s.close()));
    for (const w of this.waiting.splice(0)) w();
  }

  private evictOther(): boolean {
    for (const [key, list] of this.idle) {
      const s = list.pop();
      if (s) {
        this.forget(key);
        void s.close();
        return true;
      }
    }
    return false;
  }

  /** Wakes every waiter: which of them can proceed depends on its key, so each re-checks. */
  private wake(): void {
    for (const w of this.waiting.splice(0)) w();
  }
}
