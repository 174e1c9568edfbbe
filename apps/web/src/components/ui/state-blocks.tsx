import type { ReactNode } from 'react';
import { AlertTriangle } from 'lucide-react';
import { Spinner } from './spinner';

export function LoadingBlock({ label = '読み込み中...' }: { label?: string }) {
  return (
    <div role="status" className="flex items-center justify-center gap-2 py-12 text-gray-700">
      <Spinner className="h-5 w-5 text-blue-700" />
      {label}
    </div>
  );
}

export function ErrorBlock({ message, onRetry }: { message: string; onRetry?: () => void }) {
  return (
    <div role="alert" className="flex flex-col items-center gap-3 rounded-lg border border-red-200 bg-red-50 px-4 py-8 text-center text-red-900">
      <AlertTriangle className="h-6 w-6" aria-hidden="true" />
      <p>{message}</p>
      {onRetry ? (
        <button type="button" onClick={onRetry} className="rounded-md border border-red-300 bg-white px-3 py-1.5 text-sm font-medium text-red-900 hover:bg-red-100">
          再読み込み
        </button>
      ) : null}
    </div>
  );
}

export function EmptyBlock({ message, children }: { message: string; children?: ReactNode }) {
  return (
    <div className="flex flex-col items-center gap-4 rounded-lg border border-dashed border-gray-300 bg-white px-4 py-12 text-center text-gray-700">
      <p>{message}</p>
      {children}
    </div>
  );
}
