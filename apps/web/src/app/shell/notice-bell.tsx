import { useEffect, useId, useRef, useState } from 'react';
import { Bell } from 'lucide-react';

/** The bell: a small panel with the user's notices (there are none yet). Escape or a click outside closes it. */
export function NoticeBell() {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const panelId = useId();

  useEffect(() => {
    if (!open) return;
    const onPointer = (e: MouseEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        setOpen(false);
        button.current?.focus();
      }
    };
    document.addEventListener('mousedown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('mousedown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);

  return (
    <div className="relative" ref={ref}>
      <button
        ref={button}
        type="button"
        aria-label="お知らせ"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((o) => !o)}
        className="flex h-11 w-11 items-center justify-center rounded-full text-gray-800 hover:bg-gray-100"
      >
        <Bell className="h-5 w-5" aria-hidden="true" />
      </button>
      <div
        id={panelId}
        role="region"
        aria-label="お知らせ"
        hidden={!open}
        className="absolute right-0 z-50 mt-2 w-72 max-w-[calc(100vw-1rem)] rounded-lg border border-gray-200 bg-white p-4 shadow-lg"
      >
        <p className="font-semibold text-gray-900">お知らせ</p>
        <p className="mt-2 text-sm text-gray-700">お知らせはありません</p>
      </div>
    </div>
  );
}
