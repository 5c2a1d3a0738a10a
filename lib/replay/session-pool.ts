/**
 * A bounded pool of tool-server sessions keyed by (capability, domain). At most `size`
 * sessions exist at once; an idle session of another key is closed to make room, and
 * callers wait in order when every session is busy.
 */
import type { ToolSession } from "./mcp-session";

export class SessionPool {
  private readonly idle = new Map<string, ToolSession[]>();
  private total = 0;
  private readonly waiting: (() => void)[] = [];
  private closed = false;

  constructor(
    private readonly size: number,
    private readonly open: (key: string) => Promise<ToolSession>,
  ) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`pool size must be a positive integer, got ${size}`);
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
        this.total--;
      }
      if (this.total < this.size) {
        this.total++;
        try {
          const s = await this.open(key);
          this.started++;
          return s;
        } catch (err) {
          this.total--;
          this.wake();
          throw err;
        }
      }
      if (this.evictOther()) continue;
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
      this.total--;
      void session.close();
    }
    this.wake();
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.idle.values()].flat();
    this.idle.clear();
    this.total -= all.length;
    await Promise.all(all.map((s) => s.close()));
    for (const w of this.waiting.splice(0)) w();
  }

  private evictOther(): boolean {
    for (const [, list] of this.idle) {
      const s = list.pop();
      if (s) {
        this.total--;
        void s.close();
        return true;
      }
    }
    return false;
  }

  private wake(): void {
    this.waiting.shift()?.();
  }
}
