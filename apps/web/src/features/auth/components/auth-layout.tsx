import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { MapPin } from 'lucide-react';

/** Guest pages: centred card, no shell. */
export function AuthLayout({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="flex min-h-screen flex-col items-center justify-center bg-gray-50 px-4 py-10">
      <Link to="/" className="mb-6 flex items-center gap-2 text-xl font-bold text-blue-800">
        <MapPin className="h-6 w-6" aria-hidden="true" />
        POI Cloud
      </Link>
      <div className="w-full max-w-md rounded-xl border border-gray-200 bg-white p-6 shadow-sm sm:p-8">
        <h1 className="mb-6 text-center text-xl font-bold text-gray-900">{title}</h1>
        {children}
      </div>
    </main>
  );
}
