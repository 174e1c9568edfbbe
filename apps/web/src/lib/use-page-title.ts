import { useEffect } from 'react';

export const APP_NAME = 'POI Cloud';

/** Sets document.title to "<title> | POI Cloud" (or the bare title for the landing page). */
export function usePageTitle(title: string, bare = false): void {
  useEffect(() => {
    document.title = bare ? title : `${title} | ${APP_NAME}`;
  }, [title, bare]);
}
