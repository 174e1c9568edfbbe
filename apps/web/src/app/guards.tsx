import { useState, type ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { DEFAULT_AFTER_LOGIN } from '@poi/shared/limits';
import { hasRevenueAccess, isAdmin } from '@poi/shared/roles';
import { isAuthenticated, useAuth } from '../lib/auth-store';

/**
 * A user already signed in when a guest route opens goes to the dashboard, whatever its
 * `redirect` query says (the console specification's route guards). A sign-in that completes on the page itself (the verify
 * page) is the page's to follow up: it goes on to the redirect target, and this guard, which sees
 * the new session at the same moment, leaves it alone.
 */
export function GuestOnly({ children }: { children: ReactNode }) {
  const auth = useAuth();
  const [signedInOnArrival] = useState(() => isAuthenticated(auth));
  return signedInOnArrival ? <Navigate to={DEFAULT_AFTER_LOGIN} replace /> : children;
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
