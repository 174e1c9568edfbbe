import { isValidElement, lazy, Suspense, type ComponentType, type ReactNode } from 'react';
import { LoadingBlock } from '../components/ui/state-blocks';

export type LazyScreenComponent = ComponentType & { preload: () => Promise<ComponentType> };

/**
 * A screen whose code is fetched the first time it is shown (its own chunk, see the bundle
 * budget in bench/bundle-budget.ts). The guards and the shell around it render at once; while the
 * chunk loads, the page area shows the loading block. Navigations run in React transitions, so
 * moving between screens keeps the previous one on view until the next one is ready.
 */
export function lazyScreen(load: () => Promise<ComponentType>): LazyScreenComponent {
  let loading: Promise<ComponentType> | null = null;
  const preload = () => (loading ??= load());
  const Screen = lazy(async () => ({ default: await preload() }));
  function LazyScreen() {
    return (
      <Suspense fallback={<LoadingBlock />}>
        <Screen />
      </Suspense>
    );
  }
  return Object.assign(LazyScreen, { preload });
}

/**
 * Starts loading every lazy screen in a route's element tree (the shell and the page inside its
 * guards), so they download side by side instead of one after the other as each one renders.
 */
export function preloadScreens(node: ReactNode): void {
  if (Array.isArray(node)) {
    node.forEach(preloadScreens);
    return;
  }
  if (!isValidElement<{ children?: ReactNode }>(node)) return;
  const preload = (node.type as { preload?: unknown }).preload;
  if (typeof preload === 'function') void (preload as LazyScreenComponent['preload'])();
  preloadScreens(node.props.children);
}
