import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { X } from 'lucide-react';
import { useTopLayerDialog } from './top-layer-dialog';

interface ModalProps {
  title: string;
  onClose: () => void;
  children: ReactNode;
  footer?: ReactNode;
  size?: 'md' | 'lg';
  /** False for dialogs whose content would be lost for good (a key shown once): only the buttons close them. */
  closeOnBackdrop?: boolean;
}

/**
 * A modal dialog: a native `<dialog>` opened with showModal(), so the browser keeps focus inside,
 * makes the page behind inert and puts it in the top layer (above the map's panes and anything
 * else with a z-index). Escape (the dialog's cancel event), the × button and a click on the
 * backdrop ask `onClose`; the parent decides (unmounting closes). Focus returns to the opener.
 */
export function Modal({ title, onClose, children, footer, size = 'md', closeOnBackdrop = true }: ModalProps) {
  const titleId = useId();
  const panel = useRef<HTMLDivElement>(null);
  const dialog = useTopLayerDialog(onClose, () => {
    const first = panel.current?.querySelector<HTMLElement>('input:not([type=hidden]), select, textarea, button:not([data-close])');
    (first ?? panel.current)?.focus();
  });

  // A body that scrolls (a long POI on a phone) is a Tab stop, so the keyboard can scroll it.
  const body = useRef<HTMLDivElement>(null);
  const [scrolls, setScrolls] = useState(false);
  useEffect(() => {
    const el = body.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const check = () => setScrolls(el.scrollHeight > el.clientHeight + 1);
    const observer = new ResizeObserver(check);
    observer.observe(el);
    if (el.firstElementChild) observer.observe(el.firstElementChild);
    check();
    return () => observer.disconnect();
  }, []);

  useEffect(() => {
    const overflow = document.body.style.overflow;
    document.body.style.overflow = 'hidden';
    return () => {
      document.body.style.overflow = overflow;
    };
  }, []);

  return (
    <dialog
      ref={dialog}
      aria-labelledby={titleId}
      className="fixed inset-0 m-0 h-full max-h-none w-full max-w-none overflow-hidden bg-transparent p-0 backdrop:bg-transparent"
    >
      <div className="flex h-full w-full items-end justify-center sm:items-center sm:p-4">
      <div className="absolute inset-0 bg-gray-900/50" data-testid="modal-backdrop" aria-hidden="true" onClick={closeOnBackdrop ? onClose : undefined} />
      <div
        ref={panel}
        tabIndex={-1}
        className={`relative flex max-h-[92vh] w-full flex-col rounded-t-xl bg-white shadow-xl sm:rounded-xl ${size === 'lg' ? 'sm:max-w-2xl' : 'sm:max-w-lg'}`}
      >
        <div className="flex items-center justify-between gap-2 border-b border-gray-200 px-5 py-3">
          <h2 id={titleId} className="text-lg font-semibold text-gray-900">
            {title}
          </h2>
          <button
            type="button"
            data-close
            aria-label="閉じる"
            onClick={onClose}
            className="-mr-2 flex h-11 w-11 shrink-0 items-center justify-center rounded-md text-gray-700 hover:bg-gray-100"
          >
            <X className="h-5 w-5" aria-hidden="true" />
          </button>
        </div>
        <div ref={body} tabIndex={scrolls ? 0 : undefined} className="overflow-y-auto px-5 py-4">
          <div>{children}</div>
        </div>
        {footer ? <div className="flex flex-wrap justify-end gap-2 border-t border-gray-200 px-5 py-3">{footer}</div> : null}
      </div>
      </div>
    </dialog>
  );
}
