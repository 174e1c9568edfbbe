import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { MapPin } from 'lucide-react';

/** Public pages outside the shell (/docs/api, /commerce): the product name and the content. */
export function PublicPage({ width = 'max-w-5xl', children }: { width?: string; children: ReactNode }) {
  return (
    <div className="min-h-screen bg-white">
      <header className="border-b border-gray-200">
        <div className={`mx-auto flex ${width} items-center px-4 py-4`}>
          <Link to="/" className="flex items-center gap-2 text-lg font-bold text-blue-800">
            <MapPin className="h-5 w-5" aria-hidden="true" />
            POI Cloud
          </Link>
        </div>
      </header>
      <main className={`mx-auto ${width} px-4 py-10`}>{children}</main>
    </div>
  );
}
