import { describe, expect, it } from 'vitest';
import { monthRange, yearMonthOf } from '@poi/shared/billing-time';
import { writeUsageEvents } from '../src/modules/usage/usage.repository';
import { planMessages } from '../src/modules/plans/plans.service';
import { withTestContext, type Actor, type TestContext } from './helpers';
import { usageEvent } from './support/usage-events';

/*
 * Leaving a plan (docs/billing.md "Cancel and downgrade"): an individual's cancellation scheduled for
 * 00:00 JST on the 1st of the next month, its undo, the job that applies it exactly at that
 * instant (idempotent, audited as the system), the month's usage still invoiced at the close, and
 * a corporate owner's cancellation request.
 */

let ctx: TestContext;
let admin: Actor;
const api: TestContext['api'] = (...args) => ctx.api(...args);

withTestContext({ BILLING_JOBS: 'off' }, async (opened) => {
  ctx = opened;
  admin = await ctx.admin();
});

const auditOf = (userId: string, action: string) =>
  ctx.query<{ actor_id: string | null; before: Record<string, unknown>; after: Record<string, unknown> }>(
    'SELECT actor_id, before, after FROM audit_logs WHERE target_id = $1 AND action = $2 ORDER BY id',
    [userId, action],
  );
const typeOf = async (who: Actor) => (await api('GET', '/user', who)).json().user.account_type as string;

/** 00:00 JST on the 1st of the month after now. */
const nextMonthStart = () => monthRange(yearMonthOf(new Date())).end;

describe('cancelling the individual plan', () => {
  it('schedules the return to trial for 00:00 JST on the 1st of next month, shows it, and refuses a second one', async () => {
    const user = await ctx.newUser('individual', 'plan-schedule');
    const before = (await api('GET', '/billing/plan', user)).json().data;
    expect(before).toEqual({ account_type: 'individual', can_cancel: true, scheduled_change: null, corporate: null });

    const res = await api('POST', '/billing/plan/cancel', user);
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data.can_cancel).toBe(false);
    expect(data.scheduled_change.to_type).toBe('trial');
    expect(data.scheduled_change.effective_at).toBe(nextMonthStart().toISOString());
    // 00:00 JST is 15:00 UTC of the day before.
    expect(new Date(data.scheduled_change.effective_at).getUTCHours()).toBe(15);
    expect((await api('GET', '/billing/plan', user)).json().data).toEqual(data);
    expect(await typeOf(user)).toBe('individual');

    const audit = await auditOf(user.id, 'plan.cancel_scheduled');
    expect(audit).toHaveLength(1);
    expect(audit[0]!.actor_id).toBe(user.id);
    expect(audit[0]!.after).toMatchObject({ to_type: 'trial', effective_at: data.scheduled_change.effective_at });

    const again = await api('POST', '/billing/plan/cancel', user);
    expect(again.statusCode).toBe(409);
    expect(again.json().error.message).toBe('すでに月末での解約を予約しています');
    expect(await ctx.query('SELECT 1 FROM plan_changes WHERE user_id = $1', [user.id])).toHaveLength(1);
  });

  it('withdraws a scheduled cancellation before it takes effect, audited; a second undo is a 409', async () => {
    const user = await ctx.newUser('individual', 'plan-undo');
    expect((await api('POST', '/billing/plan/cancel', user)).statusCode).toBe(200);
    const undo = await api('POST', '/billing/plan/cancel/undo', user);
    expect(undo.statusCode, undo.body).toBe(200);
    expect(undo.json().data).toEqual({ account_type: 'individual', can_cancel: true, scheduled_change: null, corporate: null });
    const audit = await auditOf(user.id, 'plan.cancel_withdrawn');
    expect(audit).toHaveLength(1);
    expect(audit[0]!.after).toMatchObject({ status: 'withdrawn' });
    expect(await ctx.query('SELECT status FROM plan_changes WHERE user_id = $1', [user.id])).toEqual([{ status: 'withdrawn' }]);

    const twice = await api('POST', '/billing/plan/cancel/undo', user);
    expect(twice.statusCode).toBe(409);
    expect(twice.json().error.message).toBe(planMessages.nothingToUndo);
    // The job leaves a withdrawn change alone.
    await ctx.app.plans.applyDue(nextMonthStart());
    expect(await typeOf(user)).toBe('individual');
    // And it may be scheduled again.
    expect((await api('POST', '/billing/plan/cancel', user)).statusCode).toBe(200);
    expect((await api('POST', '/billing/plan/cancel/undo', user)).statusCode).toBe(200);
  });

  it('is refused for trial accounts and corporate members (409, in Japanese)', async () => {
    const trial = await ctx.newUser('trial', 'plan-trial');
    const res = await api('POST', '/billing/plan/cancel', trial);
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({ code: 'CONFLICT', message: 'トライアルのアカウントには解約できるプランがありません' });
    expect((await api('GET', '/billing/plan', trial)).json().data.can_cancel).toBe(false);

    const owner = await ctx.newUser('trial', 'plan-corp-cancel');
    expect((await api('POST', '/admin/corporate/create', admin, { ...company(), owner_user_id: owner.id, reason: '契約' })).statusCode).toBe(200);
    const corp = await api('POST', '/billing/plan/cancel', owner);
    expect(corp.statusCode).toBe(409);
    expect(corp.json().error.message).toBe(planMessages.corporateMember);
    expect(await ctx.query('SELECT 1 FROM plan_changes WHERE user_id IN ($1, $2)', [trial.id, owner.id])).toHaveLength(0);
  });

  it('takes effect at 00:00:00 JST exactly (23:59:59 is still individual), once, audited as the system; paid datasets then answer 402', async () => {
    const provider = await ctx.newProvider('plan-provider');
    const paid = await ctx.newDataset(provider, { price: 1.5 });
    const user = await ctx.newUser('individual', 'plan-apply');
    const key = (await api('POST', '/api-keys', user, { name: '解約テスト' })).json().data.key as string;
    const search = () => ctx.app.inject({ method: 'GET', url: `/api/v1/poi/search?dataset_id=${paid}`, headers: { 'x-api-key': key } });
    expect((await search()).statusCode).toBe(200);

    const effectiveAt = new Date((await api('POST', '/billing/plan/cancel', user)).json().data.scheduled_change.effective_at);
    expect(effectiveAt.getTime()).toBe(nextMonthStart().getTime());

    await ctx.app.plans.applyDue(new Date(effectiveAt.getTime() - 1000)); // 23:59:59 JST on the last day
    expect(await typeOf(user)).toBe('individual');
    expect((await api('GET', '/billing/plan', user)).json().data.scheduled_change).not.toBeNull();

    expect(await ctx.app.plans.applyDue(effectiveAt)).toBeGreaterThanOrEqual(1); // 00:00:00 JST on the 1st
    expect(await typeOf(user)).toBe('trial');
    expect((await api('GET', '/billing/plan', user)).json().data).toEqual({ account_type: 'trial', can_cancel: false, scheduled_change: null, corporate: null });
    expect(await ctx.query('SELECT status, decided_at FROM plan_changes WHERE user_id = $1', [user.id])).toEqual([{ status: 'applied', decided_at: effectiveAt }]);

    // Again (a second run, another instance): nothing more changes or is audited.
    expect(await ctx.app.plans.applyDue(new Date(effectiveAt.getTime() + 60_000))).toBe(0);
    const audit = await auditOf(user.id, 'user.account_type_changed');
    expect(audit).toHaveLength(1);
    expect(audit[0]!.actor_id).toBeNull();
    expect(audit[0]!.before).toEqual({ account_type: 'individual' });
    expect(audit[0]!.after).toMatchObject({ account_type: 'trial', via: 'plan_cancel', effective_at: effectiveAt.toISOString() });

    // Too late to undo; the trial's rules apply to the same key at once.
    expect((await api('POST', '/billing/plan/cancel/undo', user)).statusCode).toBe(409);
    const refused = await search();
    expect(refused.statusCode).toBe(402);
    expect(refused.json().error).toMatchObject({ code: 'PAYMENT_REQUIRED' });
  });

  it('leaves an account that became corporate meanwhile as it is', async () => {
    const user = await ctx.newUser('individual', 'plan-obsolete');
    const effectiveAt = new Date((await api('POST', '/billing/plan/cancel', user)).json().data.scheduled_change.effective_at);
    expect((await api('POST', '/admin/corporate/create', admin, { ...company(), owner_user_id: user.id, reason: '法人化' })).statusCode).toBe(200);
    await ctx.app.plans.applyDue(effectiveAt);
    expect(await typeOf(user)).toBe('corporate');
    expect(await ctx.query('SELECT status FROM plan_changes WHERE user_id = $1', [user.id])).toEqual([{ status: 'obsolete' }]);
    expect(await auditOf(user.id, 'plan.change_obsolete')).toHaveLength(1);
  });

  it("invoices the month's usage as an individual at the close after the account became trial", async () => {
    const ym = yearMonthOf(new Date());
    const user = await ctx.newUser('individual', 'plan-close');
    const { start } = monthRange(ym);
    // 1,500 searches at ¥1.33 each, base fee ¥0.10 beyond the free ones, during the month as individual.
    await writeUsageEvents(
      ctx.database.db,
      Array.from({ length: 1500 }, (_, i) =>
        usageEvent(user.id, new Date(start.getTime() + 60_000 + i * 1000), {
          accountType: 'individual',
          datasetIds: ['00000000-0000-4000-8000-0000000000aa'],
          datasetPricesSen: [133],
          datasetSharesBp: [7000],
          datasetRecipientIds: ['00000000-0000-4000-8000-0000000000bb'],
          baseFeeSen: 10,
          amountSen: 143,
        }),
      ),
    );
    const effectiveAt = new Date((await api('POST', '/billing/plan/cancel', user)).json().data.scheduled_change.effective_at);
    await ctx.app.plans.applyDue(effectiveAt);
    expect(await typeOf(user)).toBe('trial');

    const result = await ctx.app.billingClose.service.closeMonth(ym);
    expect(result.failed).toBe(0);
    const invoices = await ctx.query<{ id: string; status: string; subtotal_yen: string; tax_yen: string; total_yen: string }>(
      `SELECT i.id, i.status, i.subtotal_yen, i.tax_yen, i.total_yen FROM invoices i JOIN billing_accounts b ON b.id = i.billing_account_id
       WHERE b.user_id = $1 AND i.year_month = $2`,
      [user.id, ym],
    );
    expect(invoices).toHaveLength(1);
    // 1,500 × ¥1.33 = ¥1,995 and 1,500 × ¥0.10 = ¥150; tax ⌊2,145 × 10 / 100⌋ = ¥214.
    const [invoice] = invoices;
    expect([invoice!.status, Number(invoice!.subtotal_yen), Number(invoice!.tax_yen), Number(invoice!.total_yen)]).toEqual(['issued', 2145, 214, 2359]);
    const lines = await ctx.query<{ kind: string; quantity: string; amount_yen: string }>('SELECT kind, quantity, amount_yen FROM invoice_lines WHERE invoice_id = $1 ORDER BY position', [invoice!.id]);
    expect(lines.map((l) => [l.kind, Number(l.quantity), Number(l.amount_yen)])).toEqual([
      ['dataset', 1500, 1995],
      ['base_fee', 1500, 150],
    ]);
  });
});

describe('corporate cancellation requests', () => {
  it('are filed once by the owner, audited, shown to the owner and to the administrator; others get 403', async () => {
    const owner = await ctx.newUser('trial', 'cancel-owner');
    const member = await ctx.newUser('trial', 'cancel-member');
    const individual = await ctx.newUser('individual', 'cancel-individual');
    const created = await api('POST', '/admin/corporate/create', admin, { ...company({ company_name: '株式会社解約テスト' }), owner_user_id: owner.id, reason: '契約' });
    expect(created.statusCode, created.body).toBe(200);
    const corporateId = created.json().data.account.id as string;
    expect((await api('POST', `/admin/corporate/${corporateId}/members`, admin, { user_id: member.id, role: 'member', reason: '追加' })).statusCode).toBe(200);

    for (const who of [member, individual]) {
      const res = await api('POST', '/corporate/cancellation-request', who, {});
      expect(res.statusCode).toBe(403);
      expect(res.json().error.message).toBe('解約の申請は法人アカウントの所有者のみ行えます');
    }
    expect((await api('GET', '/billing/plan', member)).json().data.corporate).toEqual({ is_owner: false, cancellation_request: null });

    const res = await api('POST', '/corporate/cancellation-request', owner, { reason: '事業終了のため' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.corporate).toMatchObject({ is_owner: true, cancellation_request: { reason: '事業終了のため' } });
    expect((await api('GET', '/billing/plan', member)).json().data.corporate.cancellation_request).toMatchObject({ reason: '事業終了のため' });

    const again = await api('POST', '/corporate/cancellation-request', owner, {});
    expect(again.statusCode).toBe(409);
    expect(again.json().error.message).toBe('この法人アカウントはすでに解約を申請済みです');
    expect(await ctx.query('SELECT 1 FROM corporate_cancellation_requests WHERE corporate_account_id = $1', [corporateId])).toHaveLength(1);
    const audit = await auditOf(corporateId, 'corporate.cancellation_requested');
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor_id: owner.id, after: { requested_by: owner.id, reason: '事業終了のため' } });

    expect((await api('GET', '/admin/corporate/cancellation-requests', owner)).statusCode).toBe(403);
    const listed = (await api('GET', '/admin/corporate/cancellation-requests', admin)).json().data.requests;
    expect(listed.filter((r: { corporate_account_id: string }) => r.corporate_account_id === corporateId)).toEqual([
      expect.objectContaining({ company_name: '株式会社解約テスト', account_status: 'active', requested_by_email: owner.email, reason: '事業終了のため' }),
    ]);
    // Processed by suspending the account at month end: it leaves the list.
    expect((await api('POST', `/admin/corporate/${corporateId}/suspend`, admin, { reason: '解約申請による月末解約' })).statusCode).toBe(200);
    const after = (await api('GET', '/admin/corporate/cancellation-requests', admin)).json().data.requests;
    expect(after.some((r: { corporate_account_id: string }) => r.corporate_account_id === corporateId)).toBe(false);
  });
});

function company(over: Record<string, unknown> = {}) {
  return {
    company_name: '株式会社プラン',
    company_name_kana: 'カブシキガイシャプラン',
    department: null,
    postal_code: '1000001',
    address: '東京都千代田区千代田1-1',
    phone: '03-1234-5678',
    billing_contact_name: '請求 花子',
    billing_emails: ['keiri@example.com'],
    corporate_number: null,
    registration_number: null,
    payment_method: 'bank_transfer',
    ...over,
  };
}
