import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AUDIT_ACTION_LABELS, AUDIT_TARGET_LABELS, STATUS_LABELS } from '@poi/shared/audit-labels';
import { invoiceStatusSchema } from '@poi/shared/schemas/invoices';

/*
 * Every audit action and target type the server writes has a Japanese label for the admin screens
 * (packages/shared/src/audit-labels.ts). The codes are read from the source, so a new writeAudit
 * call with a new code fails here until the code gets its label.
 */
const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [full] : [];
  });
}

const CODE = /'([a-z]+(?:_[a-z]+)*\.[a-z]+(?:_[a-z]+)*)'/g;
const literalsOf = (text: string) => [...text.matchAll(CODE)].map((m) => m[1]!);

function writtenCodes(): { actions: Set<string>; targets: Set<string> } {
  const files = sourceFiles(SRC).map((f) => readFileSync(f, 'utf8'));
  const constants = new Map<string, string>();
  for (const text of files) for (const m of text.matchAll(/\bconst ([A-Z][A-Z0-9_]*) = '([^']+)'/g)) constants.set(m[1]!, m[2]!);
  const actions = new Set<string>();
  const targets = new Set<string>();
  for (const text of files) {
    for (const line of text.split('\n')) {
      // `action: 'x.y'`, `action: cond ? 'x.y' : 'x.z'`, `auditAction: 'x.y'`, `action: repo.SOME_ACTION`.
      const action = /\b(?:action|auditAction)\??\s*:\s*(.+)$/.exec(line)?.[1];
      if (action) {
        for (const code of literalsOf(action)) actions.add(code);
        for (const m of action.matchAll(/\b([A-Z][A-Z0-9_]{2,})\b/g)) if (constants.has(m[1]!)) actions.add(constants.get(m[1]!)!);
      }
      const target = /\btargetType\s*:\s*'([a-z_]+)'/.exec(line)?.[1];
      if (target) targets.add(target);
    }
  }
  return { actions, targets };
}

describe('audit labels', () => {
  const { actions, targets } = writtenCodes();

  it('finds the codes the server writes (the reader itself works)', () => {
    for (const known of ['invoice.issued', 'billing.month_closed', 'corporate_account.activated', 'corporate_account.reactivated', 'budget.set', 'budget.remove', 'billing_account.card_payment_credited']) {
      expect(actions).toContain(known);
    }
    expect(targets).toContain('billing_month');
    expect(actions.size).toBeGreaterThan(25);
  });

  it('has a Japanese label for every action the server writes', () => {
    expect([...actions].filter((a) => !AUDIT_ACTION_LABELS[a])).toEqual([]);
  });

  it('has a Japanese label for every target type the server writes', () => {
    expect([...targets].filter((t) => !AUDIT_TARGET_LABELS[t])).toEqual([]);
  });

  it('labels every invoice status, in Japanese without codes', () => {
    for (const status of invoiceStatusSchema.options) expect(STATUS_LABELS[status]).toMatch(/^[^a-z_]+$/);
    expect(STATUS_LABELS).toMatchObject({ issued: '発行済', paid: '支払済', partially_paid: '一部入金', overdue: '支払期限超過', void: '無効', uncollectible: '貸倒れ', draft: '下書き' });
    for (const label of [...Object.values(AUDIT_ACTION_LABELS), ...Object.values(AUDIT_TARGET_LABELS)]) expect(label).not.toMatch(/[a-z_]/);
  });
});
