import type { ReactNode } from 'react';
import { ComingSoon } from '../components/ui/coming-soon';
import { usePageTitle } from '../lib/use-page-title';

/** Sets the route's Japanese document title around its page. */
export function Titled({ title, children }: { title: string; children: ReactNode }) {
  usePageTitle(title);
  return children;
}

/** A route whose screen a later issue builds: real title, heading and guard, a 準備中 notice. */
export function PendingPage({ title, description }: { title: string; description?: string }) {
  usePageTitle(title);
  return <ComingSoon title={title} description={description} />;
}
