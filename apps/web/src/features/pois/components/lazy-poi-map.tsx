import { lazy, Suspense, type ComponentProps } from 'react';

const PoiMapImpl = lazy(() => import('./poi-map'));

/** The map is loaded on demand: Leaflet and Japan's outline stay out of the first bundle. */
export function PoiMap(props: ComponentProps<typeof PoiMapImpl>) {
  return (
    <Suspense fallback={<div className={`${props.height ?? 'h-72'} w-full animate-pulse rounded-lg bg-gray-100`} aria-hidden="true" />}>
      <PoiMapImpl {...props} />
    </Suspense>
  );
}
