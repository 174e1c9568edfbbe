import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { Database } from '../src/db/client';
import { invoices } from '../src/db/schema/invoices';
import { payments, providerEvents } from '../src/db/schema/payments';
import { users } from '../src/db/schema/users';
import { inTransaction } from '../src/db/transaction';
import { SYSTEM_ACTOR } from '../src/modules/audit/audit';
import { ensureBillingAccountForUser, findBillingAccountById } from '../src/modules/billing-accounts/billing-accounts.repository';
import { findInvoice, InvoiceSettledError, markInvoiceCardPaid, recordPayment } from '../src/modules/payments/payments.repository';
import { isProviderEventStored, storeProviderEvent } from '../src/modules/payments/stripe-events.repository';
import { uniqueEmail, withScratchDatabase } from './helpers';

/*
 * The repository functions that carry money, against a migrated database (PGlite, or PostgreSQL
 * with TEST_DATABASE_URL): a payment settles an invoice once, and a Stripe event is stored once.
 */

let database: Database;

withScratchDatabase((opened) => (database = opened));

let seq = 0;
/** An issued card invoice of `totalYen` on a fresh individual account. */
async function issuedInvoice(totalYen: number) {
  const [user] = await database.db.insert(users).values({ email: uniqueEmail('payrepo') }).returning();
  const account = await ensureBillingAccountForUser(database.db, user!.id);
  const subtotalYen = Math.ceil(totalYen / 1.1);
  const [invoice] = await database.db
    .insert(invoices)
    .values({
      billingAccountId: account.id,
      kind: 'correction',
      yearMonth: '2099-12',
      status: 'issued',
      number: `POI-209912-${String(++seq).padStart(6, '0')}-${randomUUID().slice(0, 4)}`,
      periodStart: '2099-12-01',
      periodEnd: '2099-12-31',
      issueDate: '2099-12-31',
      dueDate: '2100-01-31',
      subtotalYen,
      taxYen: totalYen - subtotalYen,
      totalYen,
      paymentMethod: 'card',
      issuerSnapshot: { name: 'POI Cloud' },
      recipientSnapshot: { addressee: '支払 太郎', honorific: '様' },
    })
    .returning();
  return { invoice: invoice!, account };
}

const pay = (invoiceId: string, amountYen: number) =>
  inTransaction(database.db, (tx) => recordPayment(tx, SYSTEM_ACTOR, { invoiceId, method: 'bank_transfer', amountYen, receivedOn: '2100-01-05' }));
const paymentsOf = (invoiceId: string) => database.db.select().from(payments).where(eq(payments.invoiceId, invoiceId));

describe('recordPayment', () => {
  it('partially settles, then settles with the excess kept as credit; a settled invoice takes no more', async () => {
    const { invoice, account } = await issuedInvoice(1100);

    const first = await pay(invoice.id, 600);
    expect(first.invoice).toMatchObject({ status: 'partially_paid', paidYen: 600 });
    expect(first.creditAdded).toBe(0);
    expect(first.payment.receiptNumber).toBeTruthy();

    const second = await pay(invoice.id, 700);
    expect(second.invoice).toMatchObject({ status: 'paid', paidYen: 1100 });
    expect(second.invoice.paidAt).not.toBeNull();
    expect(second.creditAdded).toBe(200);
    expect((await findBillingAccountById(database.db, account.id))!.creditYen).toBe(200);

    await expect(pay(invoice.id, 100)).rejects.toBeInstanceOf(InvoiceSettledError);
    expect(await paymentsOf(invoice.id)).toHaveLength(2);
    expect((await findInvoice(database.db, invoice.id))!.paidYen).toBe(1100);
  });

  it('settles an invoice exactly once when two payments for all of it arrive together', async () => {
    const { invoice, account } = await issuedInvoice(5500);
    const results = await Promise.allSettled([pay(invoice.id, 5500), pay(invoice.id, 5500)]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.filter((r) => r.status === 'rejected');
    expect(refused).toHaveLength(1);
    expect((refused[0] as PromiseRejectedResult).reason).toBeInstanceOf(InvoiceSettledError);
    expect(await paymentsOf(invoice.id)).toHaveLength(1);
    expect(await findInvoice(database.db, invoice.id)).toMatchObject({ status: 'paid', paidYen: 5500 });
    expect((await findBillingAccountById(database.db, account.id))!.creditYen).toBe(0);
  });

  it('a later card booking never moves the provider state time back', async () => {
    const { invoice } = await issuedInvoice(1100);
    await markInvoiceCardPaid(database.db, invoice.id, 'pi_newer', 2000);
    await markInvoiceCardPaid(database.db, invoice.id, 'pi_older', 1000);
    expect((await findInvoice(database.db, invoice.id))!.providerStateAt).toBe(2000);
  });
});

describe('storeProviderEvent', () => {
  it('stores an event once; a redelivery is reported as already stored', async () => {
    const event = { id: `evt_${randomUUID().replaceAll('-', '')}`, type: 'payment_intent.succeeded', created: 1_700_000_000 };
    expect(await isProviderEventStored(database.db, event.id)).toBe(false);
    expect(await inTransaction(database.db, (tx) => storeProviderEvent(tx, event, 'pi_1'))).toBe(true);
    expect(await inTransaction(database.db, (tx) => storeProviderEvent(tx, event, 'pi_1'))).toBe(false);
    expect(await isProviderEventStored(database.db, event.id)).toBe(true);
    expect(await database.db.select().from(providerEvents).where(eq(providerEvents.id, event.id))).toHaveLength(1);
  });

  it('an event whose effect rolled back is not stored, so its redelivery applies it', async () => {
    const event = { id: `evt_${randomUUID().replaceAll('-', '')}`, type: 'payment_intent.succeeded', created: 1_700_000_000 };
    await expect(
      inTransaction(database.db, async (tx) => {
        await storeProviderEvent(tx, event, null);
        throw new Error('the effect failed');
      }),
    ).rejects.toThrow('the effect failed');
    expect(await isProviderEventStored(database.db, event.id)).toBe(false);
    expect(await inTransaction(database.db, (tx) => storeProviderEvent(tx, event, null))).toBe(true);
  });
});
