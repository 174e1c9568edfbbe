import { eq } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { providerEvents } from '../../db/schema/payments';

export interface StoredEvent {
  id: string;
  type: string;
  /** The event's own creation time (Unix seconds). */
  created: number;
}

/**
 * Remembers a Stripe event, once: true when this call stored it, false when it was stored before
 * (a redelivery). Called in the transaction that applies the event, so the event and its effect
 * commit together and a repeat finds it and applies nothing.
 */
export async function storeProviderEvent(ex: Executor, event: StoredEvent, objectId: string | null): Promise<boolean> {
  const rows = await ex
    .insert(providerEvents)
    .values({ id: event.id, type: event.type, providerCreated: event.created, objectId })
    .onConflictDoNothing()
    .returning({ id: providerEvents.id });
  return rows.length === 1;
}

/** The event was stored (applied or remembered) before. */
export async function isProviderEventStored(ex: Executor, id: string): Promise<boolean> {
  const [seen] = await ex.select({ id: providerEvents.id }).from(providerEvents).where(eq(providerEvents.id, id)).limit(1);
  return Boolean(seen);
}
