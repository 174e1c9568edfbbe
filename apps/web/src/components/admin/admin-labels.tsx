import type { ReactNode } from 'react';
import { ACCOUNT_TYPES, ACCOUNT_TYPE_LABELS } from '@poi/shared/roles';

/** Labels of admin enums, in one place. */
export const USER_STATUS_LABELS: Record<string, string> = { active: '有効', suspended: '停止中' };
export const CORPORATE_STATUS_LABELS: Record<string, string> = { pending: '審査中', active: '有効', suspended: '停止中', rejected: '却下' };
export const ROLE_LABELS: Record<string, string> = { user: '一般', admin: '管理者' };
export const CORPORATE_ROLE_LABELS: Record<string, string> = { owner: 'オーナー', billing: '請求担当', member: 'メンバー' };
export const PAY_LABELS: Record<string, string> = { card: 'カード', bank_transfer: '銀行振込', none: '未登録' };
export const dateTime = (iso: string | null) =>
  iso ? new Date(iso).toLocaleString('ja-JP', { timeZone: 'Asia/Tokyo', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' }) : '—';
export const dateOnly = (iso: string | null) => (iso ? new Date(iso).toLocaleDateString('ja-JP', { timeZone: 'Asia/Tokyo', year: 'numeric', month: '2-digit', day: '2-digit' }) : '—');

/** The `<option>`s of an account-type select, in the order of ACCOUNT_TYPES. */
export function AccountTypeOptions() {
  return ACCOUNT_TYPES.map((t) => (
    <option key={t} value={t}>
      {ACCOUNT_TYPE_LABELS[t]}
    </option>
  ));
}

/** The facts of one record (a user, a company) as a two-column list of labels and values. */
export function DefinitionGrid({ items }: { items: Array<[label: string, value: ReactNode]> }) {
  return (
    <dl className="grid grid-cols-1 gap-x-4 gap-y-2 sm:grid-cols-2">
      {items.map(([k, v]) => (
        <div key={k}>
          <dt className="text-xs text-gray-700">{k}</dt>
          <dd className="break-all text-gray-900">{v}</dd>
        </div>
      ))}
    </dl>
  );
}
