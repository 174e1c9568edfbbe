import { useEffect, useId, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { toast } from 'react-toastify';
import { FileText, KeyRound, LogOut, Receipt, User as UserIcon } from 'lucide-react';
import { getInitials } from '@poi/shared/format';
import { messages } from '@poi/shared/messages';
import { isAdmin } from '@poi/shared/roles';
import type { User } from '@poi/shared/schemas/user';
import { AccountTypeBadge, AdminBadge } from '../../components/ui/account-type-badge';
import { logout } from '../../features/auth/api/auth-api';
import { authStore } from '../../lib/auth-store';
import { queryClient } from '../../lib/query-client';
import { displayNameOf } from './side-menu';

const itemClass = 'flex w-full items-center gap-2 px-4 py-2 text-left text-sm text-gray-800 hover:bg-gray-100 focus:bg-gray-100 focus:outline-none';

export function UserMenu({ user }: { user: User | null }) {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const menuId = useId();
  const navigate = useNavigate();

  useEffect(() => {
    if (!open) return;
    const onPointer = (e: MouseEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        setOpen(false);
        buttonRef.current?.focus();
      }
    };
    document.addEventListener('mousedown', onPointer);
    document.addEventListener('keydown', onKey);
    ref.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
    return () => {
      document.removeEventListener('mousedown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);

  const onLogout = async () => {
    setOpen(false);
    try {
      await logout();
      toast.success(messages.loggedOut);
    } catch {
      // The session ends on this device whatever the server answered.
    } finally {
      authStore.clear();
      queryClient.clear();
      navigate('/auth/login', { replace: true });
    }
  };

  return (
    <div className="relative" ref={ref}>
      <button
        ref={buttonRef}
        type="button"
        aria-label="ユーザーメニュー"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={() => setOpen((o) => !o)}
        className="flex h-9 w-9 items-center justify-center rounded-full bg-blue-700 text-sm font-bold text-white focus:outline-none focus:ring-2 focus:ring-blue-600 focus:ring-offset-2"
      >
        {getInitials(user?.display_name, user?.email)}
      </button>
      {open ? (
        <div
          id={menuId}
          role="menu"
          aria-label="ユーザーメニュー"
          className="absolute right-0 z-50 mt-2 w-72 max-w-[calc(100vw-1rem)] rounded-lg border border-gray-200 bg-white py-2 shadow-lg"
        >
          <div className="border-b border-gray-200 px-4 pb-3">
            <p className="truncate font-medium text-gray-900">{displayNameOf(user)}</p>
            <p className="truncate text-sm text-gray-700">{user?.email}</p>
            <div className="mt-2 flex flex-wrap gap-1">
              {user ? <AccountTypeBadge type={user.account_type} /> : null}
              {isAdmin(user) ? <AdminBadge /> : null}
            </div>
          </div>
          <div className="py-1">
            <Link role="menuitem" to="/profile" className={itemClass} onClick={() => setOpen(false)}>
              <UserIcon className="h-4 w-4" aria-hidden="true" />
              プロフィール
            </Link>
            <Link role="menuitem" to="/api-keys" className={itemClass} onClick={() => setOpen(false)}>
              <KeyRound className="h-4 w-4" aria-hidden="true" />
              APIキー
            </Link>
            <Link role="menuitem" to="/billing" className={itemClass} onClick={() => setOpen(false)}>
              <Receipt className="h-4 w-4" aria-hidden="true" />
              請求・お支払い
            </Link>
            <a role="menuitem" href="/docs/api" target="_blank" rel="noopener noreferrer" className={itemClass} onClick={() => setOpen(false)}>
              <FileText className="h-4 w-4" aria-hidden="true" />
              APIドキュメント
            </a>
          </div>
          <div className="border-t border-gray-200 pt-1">
            <button role="menuitem" type="button" className={`${itemClass} text-red-800`} onClick={onLogout}>
              <LogOut className="h-4 w-4" aria-hidden="true" />
              ログアウト
            </button>
          </div>
        </div>
      ) : null}
    </div>
  );
}
