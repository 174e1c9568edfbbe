import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '@poi/shared/schemas/users';
import { AUDIT_ACTION_LABELS } from '@poi/shared/audit-labels';
import { AuditList } from './audit-list';
import { INVOICE_STATUS_LABELS } from '../ui/billing-labels';

let id = 0;
const entry = (over: Partial<AuditEntry>): AuditEntry => ({
  id: ++id,
  occurred_at: '2026-11-01T00:05:00.000Z',
  actor_id: null,
  actor_email: null,
  action: 'invoice.issued',
  target_type: 'invoice',
  target_id: '0f0e0d0c-0000-4000-8000-000000000001',
  before: null,
  after: null,
  ip: null,
  request_id: null,
  ...over,
});

/** A code as the server stores it: snake_case words, or an action such as `invoice.issued`. */
const RAW_CODE = /[a-z]+_[a-z]+|\b(?:invoice|billing|user|corporate|plan|budget|pricing)\.[a-z]/;

describe('AuditList', () => {
  it('shows actions, targets, status changes and reason codes in Japanese, never the raw codes', () => {
    render(
      <AuditList
        entries={[
          entry({ action: 'billing.month_closed', target_type: 'billing_month', target_id: '2026-10', after: { invoices: 3 } }),
          entry({ action: 'invoice.card_payment_failed', before: { status: 'issued' }, after: { status: 'partially_paid', reason: 'declined' } }),
          entry({ action: 'invoice.overdue', before: { status: 'issued' }, after: { status: 'overdue' } }),
          entry({ action: 'invoice.write_off', before: { status: 'overdue' }, after: { status: 'uncollectible', reason: '連絡が取れないため' }, actor_email: 'admin@example.com' }),
          entry({ action: 'billing_account.card_payment_credited', target_type: 'payment_intent', target_id: 'pi_0123456789' }),
          entry({ action: 'corporate.cancellation_requested', target_type: 'corporate_account' }),
        ]}
      />,
    );
    const text = document.body.textContent ?? '';
    expect(text).not.toMatch(RAW_CODE);
    expect(screen.getByText('月次締め')).toBeInTheDocument();
    expect(text).toContain('システム → 請求月 2026-10');
    expect(text).toContain('状態: 発行済 → 一部入金 ・ 理由: カードが拒否されました');
    expect(text).toContain('状態: 発行済 → 支払期限超過');
    expect(text).toContain('admin@example.com → 請求書 0f0e0d0c ・ 状態: 支払期限超過 → 貸倒れ ・ 理由: 連絡が取れないため');
    expect(text).toContain('カード決済 pi_01234');
    expect(screen.getByText('法人アカウントの解約申請')).toBeInTheDocument();
  });

  it('labels the actions other work adds (void, credit notes, write-offs, plan cancellation)', () => {
    for (const code of ['invoice.void', 'invoice.credit_note', 'invoice.write_off', 'plan.cancel_scheduled', 'plan.cancel_undone', 'plan.downgraded', 'corporate.cancellation_requested']) {
      expect(AUDIT_ACTION_LABELS[code], code).toMatch(/^[^a-z_]+$/);
    }
  });
});

describe('invoice status labels', () => {
  it('are the one shared list, in Japanese', () => {
    expect(INVOICE_STATUS_LABELS).toEqual({ draft: '下書き', issued: '発行済', paid: '支払済', partially_paid: '一部入金', overdue: '支払期限超過', void: '無効', uncollectible: '貸倒れ' });
  });
});
