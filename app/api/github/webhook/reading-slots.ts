/**
 * The webhook's reading slots in this process: at most `total` bodies are read at once, and
 * one client address holds at most `perAddress` of them, so one address that opens many
 * connections and stalls cannot leave none for GitHub. Counted in memory: each server process
 * (serve.ts --processes) has its own slots, as it has its own sockets.
 */

export interface SlotLimits {
  total: number;
  perAddress: number;
}

/** A slot taken (give it back with `release`, once), or why none was: 503 all taken, 429 this address's share taken. */
export type SlotGrant = { ok: true; release: () => void } | { ok: false; status: 429 | 503; reason: string };

export interface ReadingSlots {
  /** `address` null: not known (no trusted proxy), so only the total applies. */
  take(address: string | null, limits: SlotLimits): SlotGrant;
  /** Slots held now, in all and by address (for tests and logs). */
  held(): { total: number; byAddress: ReadonlyMap<string, number> };
}

export function createReadingSlots(): ReadingSlots {
  let total = 0;
  const byAddress = new Map<string, number>();
  return {
    take(address, limits) {
      if (total >= limits.total) return { ok: false, status: 503, reason: "busy: too many deliveries being read" };
      const mine = address === null ? 0 : (byAddress.get(address) ?? 0);
      if (address !== null && mine >= limits.perAddress) return { ok: false, status: 429, reason: `busy: ${limits.perAddress} deliveries from this address are being read` };
      total++;
      if (address !== null) byAddress.set(address, mine + 1);
      let released = false;
      return {
        ok: true,
        release() {
          if (released) return;
          released = true;
          total--;
          if (address === null) return;
          const left = (byAddress.get(address) ?? 1) - 1;
          if (left > 0) byAddress.set(address, left);
          else byAddress.delete(address); // the map holds only addresses reading now: bounded by `total`
        },
      };
    },
    held: () => ({ total, byAddress }),
  };
}
