import type { ReactNode } from 'react';
import { usePageTitle } from '../lib/use-page-title';

/** Sets the route's Japanese document title around its page. */
export function Titled({ title, children }: { title: string; children: ReactNode }) {
  usePageTitle(title);
  return children;
}
