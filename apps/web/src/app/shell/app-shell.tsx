import { useEffect, useState } from 'react';
import { Link, Outlet, useLocation } from 'react-router';
import { Bell, MapPin, Menu, X } from 'lucide-react';
import { useAuth } from '../../lib/auth-store';
import { SideMenu } from './side-menu';
import { UserMenu } from './user-menu';

/** Top bar, side menu (fixed on large screens, a drawer below) and the page. */
export function AppShell() {
  const { user } = useAuth();
  const location = useLocation();
  // The drawer belongs to the page it was opened on: any navigation closes it.
  const [drawerPath, setDrawerPath] = useState<string | null>(null);
  const drawerOpen = drawerPath === location.pathname;
  const setDrawerOpen = (open: boolean) => setDrawerPath(open ? location.pathname : null);

  useEffect(() => {
    if (!drawerOpen) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setDrawerPath(null);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [drawerOpen]);

  return (
    <div className="min-h-screen bg-gray-50">
      <header className="fixed inset-x-0 top-0 z-40 flex h-14 items-center gap-2 border-b border-gray-200 bg-white px-3 sm:px-4">
        <button
          type="button"
          aria-label="メニューを開く"
          aria-expanded={drawerOpen}
          onClick={() => setDrawerOpen(true)}
          className="rounded-md p-2 text-gray-800 hover:bg-gray-100 focus:outline-none focus:ring-2 focus:ring-blue-600 lg:hidden"
        >
          <Menu className="h-5 w-5" aria-hidden="true" />
        </button>
        <Link to="/dashboard" className="flex items-center gap-2 text-lg font-bold text-blue-800">
          <MapPin className="h-5 w-5" aria-hidden="true" />
          POI Cloud
        </Link>
        <div className="ml-auto flex items-center gap-2">
          <button
            type="button"
            aria-label="お知らせ"
            className="rounded-full p-2 text-gray-800 hover:bg-gray-100 focus:outline-none focus:ring-2 focus:ring-blue-600"
          >
            <Bell className="h-5 w-5" aria-hidden="true" />
          </button>
          <UserMenu user={user} />
        </div>
      </header>

      <nav
        aria-label="サイドメニュー"
        className="fixed bottom-0 left-0 top-14 z-30 hidden w-64 border-r border-gray-200 bg-white lg:block"
      >
        <SideMenu user={user} />
      </nav>

      {drawerOpen ? (
        <div className="fixed inset-0 z-50 lg:hidden">
          <div className="absolute inset-0 bg-gray-900/50" aria-hidden="true" onClick={() => setDrawerOpen(false)} />
          <div role="dialog" aria-modal="true" aria-label="メニュー" className="absolute inset-y-0 left-0 flex w-72 max-w-[85vw] flex-col bg-white shadow-xl">
            <div className="flex h-14 items-center justify-between border-b border-gray-200 px-4">
              <span className="text-lg font-bold text-blue-800">POI Cloud</span>
              <button
                type="button"
                aria-label="メニューを閉じる"
                onClick={() => setDrawerOpen(false)}
                className="rounded-md p-2 text-gray-800 hover:bg-gray-100 focus:outline-none focus:ring-2 focus:ring-blue-600"
              >
                <X className="h-5 w-5" aria-hidden="true" />
              </button>
            </div>
            <nav aria-label="モバイルメニュー" className="min-h-0 flex-1">
              <SideMenu user={user} onNavigate={() => setDrawerOpen(false)} />
            </nav>
          </div>
        </div>
      ) : null}

      <main className="px-4 pb-10 pt-20 sm:px-6 lg:pl-72 lg:pr-8">
        <div className="mx-auto max-w-6xl">
          <Outlet />
        </div>
      </main>
    </div>
  );
}
