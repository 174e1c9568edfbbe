import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { Database } from '../src/db/client';
import { invoiceLines, invoices } from '../src/db/schema/invoices';
import { PLATFORM_RECIPIENT } from '../src/db/schema/usage';
import { users } from '../src/db/schema/users';
import { inTransaction } from '../src/db/transaction';
import { SYSTEM_ACTOR } from '../src/modules/audit/audit';
import { activateCorporateAccount } from '../src/modules/corporate/corporate-activation';
import { countCorporateAccounts, findCorporateWithBilling, insertCorporateAccount, listCorporateAccounts, updateCorporateAccount, syncCorporateBillingAccount } from '../src/modules/corporate/corporate.repository';
import { ensureBillingAccountForUser, findBillingAccountById } from '../src/modules/billing-accounts/billing-accounts.repository';
import { nextInvoiceNumber, nextNumber, nextReceiptNumber } from '../src/modules/invoices/numbering.repository';
import { invoiceFiguresByMonth, providerShareSenByMonth, providerShares } from '../src/modules/revenue/revenue.repository';
import { countPendingTransfers, listPendingTransfers, lockOverdueCandidates, markInvoiceOverdue } from '../src/modules/transfers/transfers.repository';
import { writeUsageEvents, type UsageEvent } from '../src/modules/usage/usage.repository';
import { uniqueEmail, withScratchDatabase } from './helpers';

/*
 * The repository functions that carry money (besides payments'), against a migrated database
 * (PGlite, or PostgreSQL with TEST_DATABASE_URL): gap-free numbers, the transfers expected and the
 * overdue marker's once-only move, a corporate account's billing data, and the providers' shares.
 * Each test works in its own far-future month or series, so the shared database does not matter.
 */

let database: Database;

withScratchDatabase((opened) => (database = opened));

async function newUser(prefix: string) {
  const [user] = await database.db.insert(users).values({ email: uniqueEmail(prefix) }).returning();
  return user!;
}

let seq = 0;
/** An issued bank-transfer invoice of `totalYen` (paid `paidYen`), due on `dueDate`. */
async function transferInvoice(billingAccountId: string, totalYen: number, dueDate: string, paidYen = 0) {
  const subtotalYen = Math.ceil(totalYen / 1.1);
  const [invoice] = await database.db
    .insert(invoices)
    .values({
      billingAccountId,
      kind: 'correction',
      yearMonth: '2098-11',
      status: paidYen ? 'partially_paid' : 'issued',
      number: `POI-209811-${String(++seq).padStart(6, '0')}-${randomUUID().slice(0, 4)}`,
      periodStart: '2098-11-01',
      periodEnd: '2098-11-30',
      issueDate: '2098-11-30',
      dueDate,
      subtotalYen,
      taxYen: totalYen - subtotalYen,
      totalYen,
      paidYen,
      paymentMethod: 'bank_transfer',
      issuerSnapshot: { name: 'POI Cloud' },
      recipientSnapshot: { addressee: '振込 花子', honorific: '様' },
    })
    .returning();
  return invoice!;
}

describe('numbering.repository', () => {
  it('hands out consecutive numbers per series, and a rolled-back issue gives its number back', async () => {
    const series = `test:${randomUUID()}`;
    expect(await inTransaction(database.db, (tx) => nextNumber(tx, series))).toBe(1);
    expect(await inTransaction(database.db, (tx) => nextNumber(tx, series))).toBe(2);
    await expect(
      inTransaction(database.db, async (tx) => {
        expect(await nextNumber(tx, series)).toBe(3);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await inTransaction(database.db, (tx) => nextNumber(tx, series))).toBe(3);
  });

  it('formats invoice and receipt numbers by month, six digits, counted apart', async () => {
    const first = await inTransaction(database.db, (tx) => nextInvoiceNumber(tx, '2097-03'));
    const second = await inTransaction(database.db, (tx) => nextInvoiceNumber(tx, '2097-03'));
    expect(first).toBe('POI-209703-000001');
    expect(second).toBe('POI-209703-000002');
    expect(await inTransaction(database.db, (tx) => nextReceiptNumber(tx, '2097-03-15'))).toBe('R-209703-000001');
  });
});

describe('transfers.repository', () => {
  it('lists the transfers expected with their exact amounts, and the overdue marker moves an invoice once', async () => {
    const user = await newUser('transrepo');
    const account = await ensureBillingAccountForUser(database.db, user.id);
    const due = await transferInvoice(account.id, 1100, '2098-12-31', 300);
    const notYetDue = await transferInvoice(account.id, 2200, '2099-01-31');

    const pending = (await listPendingTransfers(database.db, 1000, 0)).filter((r) => r.invoice.billingAccountId === account.id);
    expect(pending.map((r) => [r.invoice.id, r.invoice.totalYen, r.invoice.paidYen, r.customerNumber])).toEqual([
      [due.id, 1100, 300, account.customerNumber],
      [notYetDue.id, 2200, 0, account.customerNumber],
    ]);
    expect(await countPendingTransfers(database.db)).toBeGreaterThanOrEqual(2);

    const mark = (today: string) =>
      inTransaction(database.db, async (tx) => {
        const rows = (await lockOverdueCandidates(tx, today)).filter((r) => r.billingAccountId === account.id);
        for (const row of rows) await markInvoiceOverdue(tx, row.id);
        return rows.map((r) => r.id);
      });
    // Due on the 31st: overdue from the next day on, once.
    expect(await mark('2098-12-31')).toEqual([]);
    expect(await mark('2099-01-01')).toEqual([due.id]);
    expect(await mark('2099-01-02')).toEqual([]);
    const still = (await listPendingTransfers(database.db, 1000, 0)).find((r) => r.invoice.id === due.id);
    expect(still?.invoice.status).toBe('overdue');
  });
});

describe('corporate.repository', () => {
  it('activates an application once into one billing account that follows the company data', async () => {
    const owner = await newUser('corprepo');
    const name = `試験商事${randomUUID().slice(0, 8)}`;
    const pending = await insertCorporateAccount(database.db, {
      status: 'pending',
      companyName: name,
      companyNameKana: 'シケンショウジ',
      postalCode: '100-0001',
      address: '東京都千代田区1-1',
      phone: '03-0000-0000',
      billingContactName: '経理 太郎',
      billingEmails: ['billing@example.com'],
      paymentMethod: 'bank_transfer',
      appliedBy: owner.id,
    });
    const activated = await inTransaction(database.db, (tx) => activateCorporateAccount(tx, SYSTEM_ACTOR, pending, { via: 'admin', creditLimitYen: 500_000 }));
    expect(activated.corporate).toMatchObject({ status: 'active', creditLimitYen: 500_000 });
    expect(activated.billing.paymentMethod).toBe('bank_transfer');
    expect(activated.affectedUserIds).toEqual([owner.id]);

    const after = await inTransaction(database.db, async (tx) => {
      const changed = await updateCorporateAccount(tx, pending.id, { department: '経理部', creditLimitYen: 1_000_000 });
      await syncCorporateBillingAccount(tx, changed);
      return changed;
    });
    expect(after.creditLimitYen).toBe(1_000_000);
    expect(await findBillingAccountById(database.db, activated.billing.id)).toMatchObject({ addressee: `${name} 経理部`, paymentMethod: 'bank_transfer', creditYen: 0 });

    const found = await findCorporateWithBilling(database.db, pending.id);
    expect(found?.billingId).toBe(activated.billing.id);
    const listed = await listCorporateAccounts(database.db, { q: name });
    expect(listed.map((r) => [r.corp.id, Number(r.members), r.customerNumber])).toEqual([[pending.id, 1, activated.billing.customerNumber]]);
    expect(await countCorporateAccounts(database.db, { q: name })).toBe(1);
  });
});

describe('revenue.repository', () => {
  it("floors each provider dataset's revenue units to the sen, month by month, leaving the platform out", async () => {
    const consumer = await newUser('revconsumer');
    const provider = await newUser('revprovider');
    const dataset = randomUUID();
    const platformDataset = randomUUID();
    const apiKeyId = randomUUID();
    // 3 searches at 133 sen with a 70 % share: 3 × 133 × 7,000 = 2,793,000 units = 279.3 sen → 279.
    const events: UsageEvent[] = Array.from({ length: 3 }, (_, i) => ({
      requestId: randomUUID(),
      occurredAt: new Date(`2096-05-0${i + 1}T03:00:00Z`),
      day: `2096-05-0${i + 1}`,
      userId: consumer.id,
      apiKeyId,
      accountType: 'individual',
      pricingVersionId: 1,
      datasetIds: [dataset, platformDataset],
      datasetPricesSen: [133, 50],
      datasetSharesBp: [7000, 0],
      datasetRecipientIds: [provider.id, PLATFORM_RECIPIENT],
      baseFeeSen: 10,
      amountSen: 193,
      free: false,
    }));
    expect(await writeUsageEvents(database.db, events)).toBe(3);
    // Stored once: the same request ids add nothing.
    expect(await writeUsageEvents(database.db, events)).toBe(0);

    const byMonth = await providerShareSenByMonth(database.db, '2096-05-01', '2096-05-31');
    expect(byMonth.map((r) => [r.ym, Number(r.sen)])).toEqual([['2096-05', 279]]);
    const shares = await providerShares(database.db, '2096-05-01', '2096-05-31');
    expect(shares.map((r) => [r.recipient_id, Number(r.searches), Number(r.gross_sen), Number(r.share_sen)])).toEqual([[provider.id, 3, 399, 279]]);
  });
});

describe('usage platform rollups', () => {
  it('equal the per-user rollups summed over consumers after several flushes, a retried one and a partly repeated one included', async () => {
    const [a, b, provider] = [await newUser('platroll-a'), await newUser('platroll-b'), await newUser('platroll-p')];
    const [providerDataset, platformDataset] = [randomUUID(), randomUUID()];
    let n = 0;
    // Days of March 2095 (JST; 03:00Z is noon there), alternating consumers, every fifth search free.
    const event = (user: string, dayOfMonth: number): UsageEvent => {
      const free = ++n % 5 === 0;
      const day = `2095-03-${String(dayOfMonth).padStart(2, '0')}`;
      return {
        requestId: randomUUID(),
        occurredAt: new Date(`${day}T03:00:00Z`),
        day,
        userId: user,
        apiKeyId: randomUUID(),
        accountType: 'individual',
        pricingVersionId: 1,
        datasetIds: [providerDataset, platformDataset],
        datasetPricesSen: [133, 50],
        datasetSharesBp: [7000, 10000],
        datasetRecipientIds: [provider.id, PLATFORM_RECIPIENT],
        baseFeeSen: free ? 0 : 10,
        amountSen: free ? 183 : 193,
        free,
      };
    };
    const first = Array.from({ length: 12 }, (_, i) => event(i % 2 ? a.id : b.id, 1 + (i % 3)));
    const second = Array.from({ length: 9 }, (_, i) => event(i % 3 ? a.id : b.id, 2 + (i % 4)));
    expect(await writeUsageEvents(database.db, first)).toBe(12);
    // A flush retried after an unknown outcome: nothing new.
    expect(await writeUsageEvents(database.db, first)).toBe(0);
    expect(await writeUsageEvents(database.db, second)).toBe(9);
    // Half of it stored already, half new: only the new half counts.
    const third = [...second.slice(0, 4), ...Array.from({ length: 5 }, () => event(a.id, 5))];
    expect(await writeUsageEvents(database.db, third)).toBe(5);

    const range = sql`day BETWEEN '2095-03-01' AND '2095-03-31'`;
    const rows = async (q: ReturnType<typeof sql>) => (await database.db.execute<Record<string, unknown>>(q)).rows.map((r) => Object.values(r).map(String));
    const platformDataset_ = await rows(sql`
      SELECT day::text, recipient_id, dataset_id, searches, amount_sen, revenue_units FROM usage_platform_dataset_daily
      WHERE ${range} AND dataset_id IN (${providerDataset}, ${platformDataset}) ORDER BY 1, 2, 3`);
    const perUser = await rows(sql`
      SELECT day::text, recipient_id, dataset_id, sum(searches) AS s, sum(amount_sen) AS a, sum(revenue_units) AS u FROM usage_dataset_daily
      WHERE ${range} AND dataset_id IN (${providerDataset}, ${platformDataset}) GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`);
    expect(platformDataset_).toEqual(perUser);
    // 26 searches in all, each on both datasets.
    expect(platformDataset_.reduce((s, r) => s + Number(r[3]), 0)).toBe(52);
    expect(platformDataset_.filter((r) => r[2] === providerDataset).reduce((s, r) => s + Number(r[5]), 0)).toBe(26 * 133 * 7000);

    // usage_platform_daily is shared by every test of this database: only this test writes March 2095.
    const daily = await rows(sql`SELECT day::text, searches, free_searches, amount_sen FROM usage_platform_daily WHERE ${range} ORDER BY 1`);
    const dailyPerUser = await rows(sql`
      SELECT day::text, sum(searches) AS s, sum(free_searches) AS f, sum(amount_sen) AS a FROM usage_daily WHERE ${range} GROUP BY 1 ORDER BY 1`);
    expect(daily).toEqual(dailyPerUser);
    expect(daily.map((r) => r[0])).toEqual(['2095-03-01', '2095-03-02', '2095-03-03', '2095-03-04', '2095-03-05']);
    expect(daily.reduce((s, r) => s + Number(r[1]), 0)).toBe(26);
    expect(daily.reduce((s, r) => s + Number(r[2]), 0)).toBe(5);
  });
});

describe('invoice_dataset_monthly', () => {
  it("follows the month's monthly invoices neither draft nor void: lines of a draft count once it is issued, a void takes them back", async () => {
    const ym = '2097-07';
    const [d1, d2] = [randomUUID(), randomUUID()];
    const account = await ensureBillingAccountForUser(database.db, (await newUser('idm')).id);
    const account2 = await ensureBillingAccountForUser(database.db, (await newUser('idm2')).id);
    const kept = async () =>
      (await database.db.execute<{ dataset_id: string; billed_yen: string; lines: string }>(sql`
        SELECT dataset_id, billed_yen::text, lines::text FROM invoice_dataset_monthly WHERE year_month = ${ym} AND lines > 0 ORDER BY dataset_id`)).rows.map((r) => [r.dataset_id, Number(r.billed_yen), Number(r.lines)]);
    // What platform revenue summed before: the month's lines, joined.
    const summed = async () =>
      (await database.db.execute<{ dataset_id: string; billed: string; lines: string }>(sql`
        SELECT l.dataset_id, sum(l.amount_yen)::text AS billed, count(*)::text AS lines FROM invoice_lines l JOIN invoices i ON i.id = l.invoice_id
        WHERE i.year_month = ${ym} AND i.kind = 'monthly' AND i.status NOT IN ('draft', 'void') AND l.kind = 'dataset' GROUP BY 1 ORDER BY 1`)).rows.map((r) => [r.dataset_id, Number(r.billed), Number(r.lines)]);
    const draft = async (billingAccountId: string, lines: Array<[string, number]>) => {
      const [inv] = await database.db
        .insert(invoices)
        .values({ billingAccountId, kind: 'monthly', yearMonth: ym, status: 'draft', periodStart: `${ym}-01`, periodEnd: `${ym}-31`, subtotalYen: 0, taxYen: 0, totalYen: 0, paymentMethod: 'bank_transfer', issuerSnapshot: { name: 'POI Cloud' }, recipientSnapshot: { addressee: 'x' } })
        .returning();
      await database.db.insert(invoiceLines).values([
        ...lines.map(([datasetId, amountYen], i) => ({ invoiceId: inv!.id, position: i + 1, kind: 'dataset' as const, datasetId, description: 'd', quantity: 1, unitPriceSen: amountYen * 100, amountYen, taxRateBp: 1000 })),
        { invoiceId: inv!.id, position: lines.length + 1, kind: 'base_fee' as const, datasetId: null, description: 'b', quantity: 1, unitPriceSen: 500, amountYen: 5, taxRateBp: 1000 },
      ]);
      return inv!;
    };
    const issue = (id: string) => database.db.update(invoices).set({ status: 'issued', number: `POI-209707-${randomUUID().slice(0, 8)}`, issueDate: '2097-08-01', dueDate: '2097-09-30', subtotalYen: 1, taxYen: 0, totalYen: 1 }).where(eq(invoices.id, id));
    const a = await draft(account.id, [[d1, 120], [d2, 30]]);
    expect(await kept()).toEqual([]);
    await issue(a.id);
    const b = await draft(account2.id, [[d1, 7]]);
    await issue(b.id);
    const byId = (rows: Array<(string | number)[]>) => rows.sort((x, y) => String(x[0]).localeCompare(String(y[0])));
    expect(byId(await kept())).toEqual(byId([[d1, 127, 2], [d2, 30, 1]]));
    expect(await kept()).toEqual(await summed());
    await database.db.update(invoices).set({ status: 'void', voidReason: 'test', voidedAt: new Date() }).where(eq(invoices.id, a.id));
    expect(await kept()).toEqual([[d1, 7, 1]]);
    expect(await kept()).toEqual(await summed());
  });
});

describe('invoice_figures_monthly', () => {
  it("equals the month's monthly invoices summed through every change: issue, payments, credit, overdue, void, a month moved, a delete", async () => {
    const [ym, ym2] = ['2097-10', '2097-11'];
    // What the admin figures summed before migration 0026: the invoices themselves.
    const summed = async () =>
      (await database.db.execute<Record<string, string>>(sql`
        SELECT year_month, count(*)::text AS invoices, sum(subtotal_yen)::text AS billed, sum(tax_yen)::text AS tax, sum(total_yen)::text AS total,
               sum(paid_yen + credit_applied_yen)::text AS collected, sum(credited_yen)::text AS credited,
               coalesce(sum(greatest(total_yen - credit_applied_yen - paid_yen - credited_yen, 0)) FILTER (WHERE status IN ('issued', 'partially_paid', 'overdue')), 0)::text AS outstanding
        FROM invoices WHERE year_month IN (${ym}, ${ym2}) AND kind = 'monthly' AND status NOT IN ('draft', 'void')
        GROUP BY 1 ORDER BY 1`)).rows;
    const kept = async () =>
      (await invoiceFiguresByMonth(database.db, [ym, ym2]))
        .filter((r) => Number(r.invoices) !== 0 || Number(r.billed) !== 0)
        .map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, String(v ?? 0)])))
        .sort((a, b) => a.year_month!.localeCompare(b.year_month!));
    const same = async () => expect(await kept()).toEqual(await summed());
    const accounts = await Promise.all(['ifm1', 'ifm2', 'ifm3', 'ifm4'].map(async (p) => (await ensureBillingAccountForUser(database.db, (await newUser(p)).id)).id));
    const draft = async (billingAccountId: string, subtotalYen: number, kind: 'monthly' | 'correction' = 'monthly') => {
      const taxYen = Math.floor(subtotalYen / 10);
      const [inv] = await database.db
        .insert(invoices)
        .values({ billingAccountId, kind, yearMonth: ym, status: 'draft', periodStart: `${ym}-01`, periodEnd: `${ym}-31`, subtotalYen, taxYen, totalYen: subtotalYen + taxYen, paymentMethod: 'bank_transfer', issuerSnapshot: { name: 'POI Cloud' }, recipientSnapshot: { addressee: 'x' } })
        .returning();
      return inv!.id;
    };
    const set = (id: string, values: Partial<typeof invoices.$inferInsert>) => database.db.update(invoices).set(values).where(eq(invoices.id, id));
    const issued = (n: number) => ({ status: 'issued' as const, number: `POI-209710-${randomUUID().slice(0, 8)}-${n}`, issueDate: '2097-11-01', dueDate: '2097-12-31' });

    const [a, b, c, d] = [await draft(accounts[0]!, 1000), await draft(accounts[1]!, 2500), await draft(accounts[2]!, 40), await draft(accounts[3]!, 700)];
    expect(await kept()).toEqual([]); // drafts do not count
    await same();
    await set(a, issued(1));
    await set(b, issued(2));
    await set(c, { ...issued(3), creditAppliedYen: 44, status: 'paid', paidAt: new Date() }); // paid from the account's credit at issue
    await set(d, issued(4));
    await same();
    await set(a, { paidYen: 500, status: 'partially_paid' });
    await set(b, { paidYen: 2750, status: 'paid', paidAt: new Date() });
    await same();
    await set(a, { status: 'overdue' });
    await set(d, { creditedYen: 770, status: 'paid' }); // credited in full: nothing owed
    await same();
    await set(a, { pdfSha256: 'f'.repeat(64), paymentAttempts: 2, lastPaymentError: 'x' }); // no figure moves
    await same();
    await set(c, { status: 'void', voidReason: 'test', voidedAt: new Date() });
    await same();
    // A draft moved to another month, then issued there; a draft deleted; a correction never counts.
    const e = await draft(accounts[2]!, 90, 'correction');
    await set(e, issued(5));
    const f = await draft((await ensureBillingAccountForUser(database.db, (await newUser('ifm5')).id)).id, 300);
    await set(f, { yearMonth: ym2 });
    await set(f, issued(6));
    await same();
    const g = await draft((await ensureBillingAccountForUser(database.db, (await newUser('ifm6')).id)).id, 55);
    await database.db.delete(invoices).where(eq(invoices.id, g));
    await same();
    const rows = await kept();
    expect(rows.map((r) => [r.year_month, r.invoices, r.billed, r.outstanding])).toEqual([
      [ym, '3', '4200', '600'],
      [ym2, '1', '300', '330'],
    ]);
  });
});
