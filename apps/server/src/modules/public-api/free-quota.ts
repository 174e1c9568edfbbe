/**
 * The month's free searches of each user, counted in this process: loaded once from the stored
 * usage, then kept up to date as searches succeed, so the hot path never queries for it.
 *
 * Trial accounts may search only within their free searches: a slot is reserved before the
 * search runs (so concurrent requests cannot overshoot) and released when it fails. For other
 * accounts the free searches only waive the base fee; whether a search was free is decided
 * when it succeeds.
 */
export interface FreeQuotaSlot {
  /** Free searches of the month already stored or succeeded here. */
  used: number;
  /** Searches reserved and still running. */
  pending: number;
}

export interface FreeQuota {
  /**
   * Reserves a search of this user in this month. With `hardLimit`, answers false (and reserves
   * nothing) when used and running searches already reach it.
   */
  reserve(userId: string, yearMonth: string, hardLimit?: number): Promise<boolean>;
  /** Ends a reservation; for a success, answers whether it was one of the `limit` free searches. */
  settle(userId: string, yearMonth: string, succeeded: boolean, limit: number): boolean;
}

const MAX_SLOTS = 200_000;

export function createFreeQuota(load: (userId: string, yearMonth: string) => Promise<number>): FreeQuota {
  const slots = new Map<string, FreeQuotaSlot>();
  const loading = new Map<string, Promise<FreeQuotaSlot>>();

  async function slotOf(userId: string, yearMonth: string): Promise<FreeQuotaSlot> {
    const id = `${userId}:${yearMonth}`;
    const slot = slots.get(id);
    if (slot) return slot;
    let pending = loading.get(id);
    if (!pending) {
      pending = load(userId, yearMonth)
        .then((used) => {
          if (slots.size >= MAX_SLOTS) {
            for (const [k, s] of slots) if (s.pending === 0) slots.delete(k);
          }
          const loaded = { used, pending: 0 };
          slots.set(id, loaded);
          return loaded;
        })
        .finally(() => loading.delete(id));
      loading.set(id, pending);
    }
    return pending;
  }

  return {
    async reserve(userId, yearMonth, hardLimit) {
      const slot = await slotOf(userId, yearMonth);
      if (hardLimit !== undefined && slot.used + slot.pending >= hardLimit) return false;
      slot.pending += 1;
      return true;
    },
    settle(userId, yearMonth, succeeded, limit) {
      const slot = slots.get(`${userId}:${yearMonth}`);
      if (!slot) return false;
      slot.pending = Math.max(0, slot.pending - 1);
      if (!succeeded || slot.used >= limit) return false;
      slot.used += 1;
      return true;
    },
  };
}
