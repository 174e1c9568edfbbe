import { useEffect, useRef } from 'react';
import { NavLink, Link, useLocation } from 'react-router';
import { getInitials } from '@poi/shared/format';
import type { User } from '@poi/shared/schemas/users';
import { AccountTypeBadge } from '../../components/ui/account-type-badge';
import { menuGroupsFor } from './menu';

export const displayNameOf = (user: User | null): string => user?.display_name?.trim() || 'ゲスト';

/**
 * Menu groups and the account footer; used by the fixed sidebar and by the mobile drawer
 * (`onNavigate` given), whose links are touch targets 44 px high.
 */
export function SideMenu({ user, onNavigate }: { user: User | null; onNavigate?: () => void }) {
  const list = useRef<HTMLDivElement>(null);
  const { pathname } = useLocation();
  // The admin's menu is taller than a 800 px window: scroll the current page's link into view
  // (inside the menu only; the page itself does not move).
  useEffect(() => {
    const box = list.current;
    const current = box?.querySelector<HTMLElement>('a[aria-current="page"]');
    if (!box || !current) return;
    const top = current.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop;
    const bottom = top + current.offsetHeight;
    if (top < box.scrollTop) box.scrollTop = Math.max(0, top - 8);
    else if (bottom > box.scrollTop + box.clientHeight) box.scrollTop = bottom - box.clientHeight + 8;
  }, [pathname]);
  return (
    <div className="flex h-full flex-col">
      <div ref={list} className="min-h-0 flex-1 overflow-y-auto px-3 py-4">
        {menuGroupsFor(user).map((group) => (
          <div key={group.id} className="mb-4" data-menu-group={group.id}>
            {group.heading ? (
              <p className="px-3 pb-1 text-xs font-semibold uppercase tracking-wide text-gray-600">{group.heading}</p>
            ) : null}
            <ul className="space-y-0.5">
              {group.items.map((item) => (
                <li key={item.to}>
                  <NavLink
                    to={item.to}
                    onClick={onNavigate}
                    className={({ isActive }) =>
                      `flex items-center gap-3 rounded-md px-3 py-2 text-sm font-medium ${onNavigate ? 'min-h-11' : ''} ${
                        isActive ? 'bg-blue-50 text-blue-800' : 'text-gray-800 hover:bg-gray-100'
                      }`
                    }
                  >
                    <item.icon className="h-4 w-4 shrink-0" aria-hidden="true" />
                    {item.label}
                  </NavLink>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </div>
      <div className="border-t border-gray-200 p-3">
        <div className="mb-2 px-2">{user ? <AccountTypeBadge type={user.account_type} /> : null}</div>
        <Link to="/profile" onClick={onNavigate} className="flex items-center gap-3 rounded-md px-2 py-2 hover:bg-gray-100">
          <span
            className="flex h-9 w-9 shrink-0 items-center justify-center rounded-full bg-blue-700 text-sm font-bold text-white"
            aria-hidden="true"
          >
            {getInitials(user?.display_name, user?.email)}
          </span>
          <span className="min-w-0">
            <span className="block truncate text-sm font-medium text-gray-900">{displayNameOf(user)}</span>
            <span className="block truncate text-xs text-gray-700">{user?.email}</span>
          </span>
        </Link>
      </div>
    </div>
  );
}
