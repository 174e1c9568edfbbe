import { useEffect, useState, useSyncExternalStore } from 'react';
import { createPortal } from 'react-dom';
import { ToastContainer, toast, type CloseButtonProps, type Id, type ToastPosition } from 'react-toastify';
import { X } from 'lucide-react';
import { TOAST_AUTO_CLOSE_MS, TOAST_LIMIT } from '@poi/shared/limits';
import { toastHost } from '../components/ui/toast-host';

/** At most this many toasts at once on a phone (the rest wait in the queue). */
export const TOAST_LIMIT_SMALL = 3;
const SMALL_SCREEN = '(max-width: 639px)';

function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (change) => {
      if (typeof window.matchMedia !== 'function') return () => {};
      const list = window.matchMedia(query);
      list.addEventListener('change', change);
      return () => list.removeEventListener('change', change);
    },
    () => typeof window.matchMedia === 'function' && window.matchMedia(query).matches,
    () => false,
  );
}

/**
 * On a phone the toasts take the half of the screen the focused field is not in (the bottom,
 * unless the field being filled is down there), so they never hide what the user is typing into.
 */
function usePhonePosition(): ToastPosition {
  const [position, setPosition] = useState<ToastPosition>('bottom-center');
  useEffect(() => {
    const place = () => {
      const el = document.activeElement;
      if (!(el instanceof HTMLElement) || el === document.body) return;
      const box = el.getBoundingClientRect();
      setPosition(box.top + box.height / 2 > window.innerHeight / 2 ? 'top-center' : 'bottom-center');
    };
    place();
    document.addEventListener('focusin', place);
    window.addEventListener('resize', place);
    return () => {
      document.removeEventListener('focusin', place);
      window.removeEventListener('resize', place);
    };
  }, []);
  return position;
}

/** One toast per message: the same text again replaces the one on screen instead of piling up. */
function useCollapsedRepeats() {
  useEffect(() => {
    const shown = new Map<string, Id>();
    return toast.onChange((item) => {
      if (typeof item.content !== 'string') return;
      if (item.status === 'added') {
        const previous = shown.get(item.content);
        shown.set(item.content, item.id);
        if (previous !== undefined && previous !== item.id) toast.dismiss(previous);
      } else if (item.status === 'removed' && shown.get(item.content) === item.id) {
        shown.delete(item.content);
      }
    });
  }, []);
}

function CloseToastButton({ closeToast }: CloseButtonProps) {
  return (
    <button
      type="button"
      aria-label="閉じる"
      onClick={closeToast}
      className="-my-2 -mr-2 flex h-11 w-11 shrink-0 items-center justify-center self-start rounded-md text-gray-700 hover:bg-black/5"
    >
      <X className="h-4 w-4" aria-hidden="true" />
    </button>
  );
}

export const TOAST_TIMER_LABEL = '通知が閉じるまでの時間';

/**
 * react-toastify names each toast's countdown bar "notification timer" (no option changes it):
 * every bar that appears is named in Japanese instead. React never sets that attribute again
 * (its value does not change), so the name stays.
 */
function useJapaneseTimerLabel() {
  useEffect(() => {
    const host = toastHost();
    const rename = () => {
      for (const bar of host.querySelectorAll('[role=progressbar]')) if (bar.getAttribute('aria-label') !== TOAST_TIMER_LABEL) bar.setAttribute('aria-label', TOAST_TIMER_LABEL);
    };
    rename();
    const observer = new MutationObserver(rename);
    observer.observe(host, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, []);
}

/** The console's toasts (spec: top right, 5 s, at most 20; phones: at most 3, away from the focused field). */
export function AppToasts() {
  const small = useMediaQuery(SMALL_SCREEN);
  const phonePosition = usePhonePosition();
  useCollapsedRepeats();
  useJapaneseTimerLabel();
  return createPortal(
    <ToastContainer
      position={small ? phonePosition : 'top-right'}
      autoClose={TOAST_AUTO_CLOSE_MS}
      limit={small ? TOAST_LIMIT_SMALL : TOAST_LIMIT}
      closeButton={CloseToastButton}
      aria-label="通知(Alt+Tで移動)"
      pauseOnHover
      pauseOnFocusLoss
      draggable
      newestOnTop
    />,
    toastHost(),
  );
}
