import { ACCOUNT_TYPE_LABELS, type AccountType } from '@poi/shared/roles';

/** Spec: trial yellow, individual blue, corporate purple, every other type grey. */
export function accountTypeBadgeClass(type: string): string {
  switch (type) {
    case 'trial':
      return 'bg-yellow-100 text-yellow-900 ring-yellow-300';
    case 'individual':
      return 'bg-blue-100 text-blue-900 ring-blue-300';
    case 'corporate':
      return 'bg-purple-100 text-purple-900 ring-purple-300';
    default:
      return 'bg-gray-100 text-gray-800 ring-gray-300';
  }
}

export function AccountTypeBadge({ type }: { type: string }) {
  const label = ACCOUNT_TYPE_LABELS[type as AccountType] ?? type;
  return (
    <span
      data-account-type={type}
      className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${accountTypeBadgeClass(type)}`}
    >
      {label}
    </span>
  );
}

export function AdminBadge() {
  return (
    <span className="inline-flex items-center rounded-full bg-red-100 px-2 py-0.5 text-xs font-medium text-red-900 ring-1 ring-inset ring-red-300">
      管理者権限
    </span>
  );
}
