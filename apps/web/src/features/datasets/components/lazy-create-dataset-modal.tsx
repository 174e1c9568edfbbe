import { lazy, Suspense, type ComponentProps } from 'react';

const Impl = lazy(() => import('./create-dataset-modal').then((m) => ({ default: m.CreateDatasetModal })));

/**
 * The create dialog (react-hook-form and its resolvers) loads when it is opened, not with the
 * dataset lists (bench/bundle-budget.ts).
 */
export function CreateDatasetModal(props: ComponentProps<typeof Impl>) {
  return (
    <Suspense fallback={null}>
      <Impl {...props} />
    </Suspense>
  );
}
