import type { ReactNode } from 'react';
import { Navigate, useLocation, useSearchParams } from 'react-router';
import { DEFAULT_AFTER_LOGIN } from '@poi/shared/limits';
import { hasRevenueAccess, isAdmin } from '@poi/shared/roles';
import { safeRedirect } from '@poi/shared/schemas/auth';
import { isAuthenticated, useAuth } from '../lib/auth-store';

/**
 * Signed-in users are sent to the dashboard (spec 2, guards), or to the page named by a
 * `redirect` query: the moment a sign-in completes on the verify page this guard sees a
 * signed-in user, and it must agree with the page about where to go.
 */
export function GuestOnly({ children }: { children: ReactNode }) {
  const auth = useAuth();
  const [params] = useSearchParams();
  return isAuthenticated(auth) ? <Navigate to={safeRedirect(params.get('redirect'), DEFAULT_AFTER_LOGIN)} replace /> : children;
}

/** Unsigned users go to login with the full target path in `redirect`. */
export function RequireAuth({ children }: { children: ReactNode }) {
  const auth = useAuth();
  const location = useLocation();
  if (!isAuthenticated(auth)) {
    const target = `${location.pathname}${location.search}${location.hash}`;
    return <Navigate to={`/auth/login?${new URLSearchParams({ redirect: target }).toString()}`} replace />;
  }
  return children;
}

export function RequireAdmin({ children }: { children: ReactNode }) {
  const { user } = useAuth();
  return isAdmin(user) ? children : <Navigate to={DEFAULT_AFTER_LOGIN} replace />;
}

export function RequireRevenueAccess({ children }: { children: ReactNode }) {
  const { user } = useAuth();
  return hasRevenueAccess(user) ? children : <Navigate to={DEFAULT_AFTER_LOGIN} replace />;
}
