import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Link, Outlet, useLocation } from 'react-router';
import { MapPin, Menu, X } from 'lucide-react';
import { useTopLayerDialog } from '../../components/ui/top-layer-dialog';
import { useAuth } from '../../lib/auth-store';
import { NoticeBell } from './notice-bell';
import { SideMenu } from './side-menu';
import { UserMenu } from './user-menu';

const MAIN_ID = 'main-content';

/** The phone drawer: a modal dialog of its own (focus inside, the page behind inert, Escape closes). */
function Drawer({ onClose, children }: { onClose: () => void; children: ReactNode }) {
  const closeButton = useRef<HTMLButtonElement>(null);
  const dialog = useTopLayerDialog(onClose, () => closeButton.current?.focus());
  return (
    <dialog ref={dialog} aria-label="メニュー" className="fixed inset-0 m-0 h-full max-h-none w-full max-w-none bg-transparent p-0 backdrop:bg-transparent lg:hidden">
      <div className="absolute inset-0 bg-gray-900/50" aria-hidden="true" onClick={onClose} />
      <div className="absolute inset-y-0 left-0 flex w-72 max-w-[85vw] flex-col bg-white shadow-xl">
        <div className="flex h-14 items-center justify-between border-b border-gray-200 px-4">
          <span className="text-lg font-bold text-blue-800">POI Cloud</span>
          <button
            ref={closeButton}
            type="button"
            aria-label="メニューを閉じる"
            onClick={onClose}
            className="-mr-2 flex h-11 w-11 items-center justify-center rounded-md text-gray-800 hover:bg-gray-100"
          >
            <X className="h-5 w-5" aria-hidden="true" />
          </button>
        </div>
        <nav aria-label="モバイルメニュー" className="min-h-0 flex-1">
          {children}
        </nav>
      </div>
    </dialog>
  );
}

/** Top bar, side menu (fixed on large screens, a drawer below) and the page. */
export function AppShell() {
  const { user } = useAuth();
  const location = useLocation();
  // The drawer belongs to the page it was opened on: any navigation closes it.
  const [drawerPath, setDrawerPath] = useState<string | null>(null);
  const drawerOpen = drawerPath === location.pathname;
  const setDrawerOpen = (open: boolean) => setDrawerPath(open ? location.pathname : null);

  // An in-app page change that removed the focused element (a deleted row's button, a menu
  // item) would leave focus on <body>: start from the new page's content instead. (A page
  // opened afresh keeps focus at the top, where the skip link is the first Tab stop.)
  const firstPath = useRef(location.pathname);
  useEffect(() => {
    if (location.pathname === firstPath.current) return;
    firstPath.current = '';
    if (!document.activeElement || document.activeElement === document.body) document.getElementById(MAIN_ID)?.focus({ preventScroll: true });
  }, [location.pathname]);

  return (
    <div className="min-h-screen bg-gray-50">
      <a
        href={`#${MAIN_ID}`}
        onClick={(e) => {
          e.preventDefault();
          const main = document.getElementById(MAIN_ID);
          main?.focus();
          main?.scrollIntoView();
        }}
        className="sr-only rounded-md bg-white px-4 py-3 font-medium text-blue-800 shadow focus:not-sr-only focus:fixed focus:left-2 focus:top-2 focus:z-50"
      >
        本文へスキップ
      </a>
      <header className="fixed inset-x-0 top-0 z-40 flex h-14 items-center gap-1 border-b border-gray-200 bg-white px-2 sm:gap-2 sm:px-4">
        <button
          type="button"
          aria-label="メニューを開く"
          aria-haspopup="dialog"
          aria-expanded={drawerOpen}
          onClick={() => setDrawerOpen(true)}
          className="flex h-11 w-11 items-center justify-center rounded-md text-gray-800 hover:bg-gray-100 lg:hidden"
        >
          <Menu className="h-5 w-5" aria-hidden="true" />
        </button>
        <Link to="/dashboard" className="flex min-h-11 items-center gap-2 rounded-md px-1 text-lg font-bold text-blue-800">
          <MapPin className="h-5 w-5" aria-hidden="true" />
          POI Cloud
        </Link>
        <div className="ml-auto flex items-center gap-1 sm:gap-2">
          <NoticeBell />
          <UserMenu user={user} />
        </div>
      </header>

      <nav aria-label="サイドメニュー" className="fixed bottom-0 left-0 top-14 z-30 hidden w-64 border-r border-gray-200 bg-white lg:block">
        <SideMenu user={user} />
      </nav>

      {drawerOpen ? (
        <Drawer onClose={() => setDrawerOpen(false)}>
          <SideMenu user={user} onNavigate={() => setDrawerOpen(false)} />
        </Drawer>
      ) : null}

      <main id={MAIN_ID} tabIndex={-1} className="px-4 pb-10 pt-20 focus:outline-none sm:px-6 lg:pl-72 lg:pr-8">
        <div className="mx-auto max-w-6xl">
          <Outlet />
        </div>
      </main>
    </div>
  );
}
