import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { toast } from 'react-toastify';
import { FileText, KeyRound, LogOut, Receipt, User as UserIcon } from 'lucide-react';
import { getInitials } from '@poi/shared/format';
import { messages } from '@poi/shared/messages';
import { isAdmin } from '@poi/shared/roles';
import type { User } from '@poi/shared/schemas/users';
import { AccountTypeBadge, AdminBadge } from '../../components/ui/account-type-badge';
import { logout } from '../../features/auth/api/auth-api';
import { authStore } from '../../lib/auth-store';
import { queryClient } from '../../lib/query-client';
import { displayNameOf } from './side-menu';

const itemClass = 'flex min-h-11 w-full items-center gap-2 px-4 py-2 text-left text-sm text-gray-800 hover:bg-gray-100 focus:bg-blue-50';

/**
 * The user menu, after the WAI-ARIA menu button pattern: Enter, Space or ↓ open it on the first
 * item (↑ on the last); ↑ ↓ move, Home/End jump, Escape closes it and returns to the button,
 * Tab closes it and moves on.
 */
export function UserMenu({ user }: { user: User | null }) {
  const [open, setOpen] = useState(false);
  const [focusFirst, setFocusFirst] = useState<'first' | 'last'>('first');
  const ref = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const menuId = useId();
  const navigate = useNavigate();

  const items = () => Array.from(ref.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? []);

  useEffect(() => {
    if (!open) return;
    const onPointer = (e: MouseEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', onPointer);
    const list = items();
    (focusFirst === 'last' ? list.at(-1) : list[0])?.focus();
    return () => document.removeEventListener('mousedown', onPointer);
  }, [open, focusFirst]);

  const openAt = (where: 'first' | 'last') => {
    setFocusFirst(where);
    setOpen(true);
  };

  const onButtonKey = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      openAt(e.key === 'ArrowDown' ? 'first' : 'last');
    }
  };

  const onMenuKey = (e: KeyboardEvent) => {
    const list = items();
    const i = list.indexOf(document.activeElement as HTMLElement);
    const go = (n: number) => {
      e.preventDefault();
      list[(n + list.length) % list.length]?.focus();
    };
    switch (e.key) {
      case 'ArrowDown':
        return go(i + 1);
      case 'ArrowUp':
        return go(i - 1);
      case 'Home':
        return go(0);
      case 'End':
        return go(list.length - 1);
      case 'Escape':
        e.preventDefault();
        setOpen(false);
        buttonRef.current?.focus();
        return;
      case 'Tab':
        setOpen(false);
        return;
      case ' ':
        // Space activates the item, as Enter does (links ignore Space natively).
        if (document.activeElement instanceof HTMLElement) {
          e.preventDefault();
          document.activeElement.click();
        }
        return;
    }
  };

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
        onClick={() => (open ? setOpen(false) : openAt('first'))}
        onKeyDown={onButtonKey}
        className="flex h-11 w-11 items-center justify-center rounded-full bg-blue-700 text-sm font-bold text-white"
      >
        {getInitials(user?.display_name, user?.email)}
      </button>
      {open ? (
        <div className="absolute right-0 z-50 mt-2 w-72 max-w-[calc(100vw-1rem)] rounded-lg border border-gray-200 bg-white py-2 shadow-lg">
          <div className="border-b border-gray-200 px-4 pb-3">
            <p className="truncate font-medium text-gray-900">{displayNameOf(user)}</p>
            <p className="truncate text-sm text-gray-700">{user?.email}</p>
            <div className="mt-2 flex flex-wrap gap-1">
              {user ? <AccountTypeBadge type={user.account_type} /> : null}
              {isAdmin(user) ? <AdminBadge /> : null}
            </div>
          </div>
          <div id={menuId} role="menu" aria-label="ユーザーメニュー" onKeyDown={onMenuKey} className="py-1">
            <Link role="menuitem" tabIndex={-1} to="/profile" className={itemClass} onClick={() => setOpen(false)}>
              <UserIcon className="h-4 w-4" aria-hidden="true" />
              プロフィール
            </Link>
            <Link role="menuitem" tabIndex={-1} to="/api-keys" className={itemClass} onClick={() => setOpen(false)}>
              <KeyRound className="h-4 w-4" aria-hidden="true" />
              APIキー
            </Link>
            <Link role="menuitem" tabIndex={-1} to="/billing" className={itemClass} onClick={() => setOpen(false)}>
              <Receipt className="h-4 w-4" aria-hidden="true" />
              請求・お支払い
            </Link>
            <a role="menuitem" tabIndex={-1} href="/docs/api" target="_blank" rel="noopener noreferrer" className={itemClass} onClick={() => setOpen(false)}>
              <FileText className="h-4 w-4" aria-hidden="true" />
              APIドキュメント
            </a>
            <div role="separator" className="my-1 border-t border-gray-200" />
            <button role="menuitem" tabIndex={-1} type="button" className={`${itemClass} text-red-800`} onClick={onLogout}>
              <LogOut className="h-4 w-4" aria-hidden="true" />
              ログアウト
            </button>
          </div>
        </div>
      ) : null}
    </div>
  );
}
