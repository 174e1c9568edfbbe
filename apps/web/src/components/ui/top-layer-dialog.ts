import { useLayoutEffect, useRef } from 'react';
import { dialogClosed, dialogOpened, isTopDialog } from './toast-host';

const TABBABLE = 'a[href], button:not([disabled]), input:not([disabled]):not([type=hidden]), select:not([disabled]), textarea:not([disabled]), [tabindex]';

/** The dialog's own Tab stops in order (not those of a dialog nested in it; one per radio group). */
function tabStops(dialog: HTMLDialogElement): HTMLElement[] {
  return Array.from(dialog.querySelectorAll<HTMLElement>(TABBABLE)).filter((el) => {
    if (el.tabIndex < 0 || el.closest('dialog') !== dialog || el.getClientRects().length === 0) return false;
    if (el instanceof HTMLInputElement && el.type === 'radio' && !el.checked && el.name) {
      return !dialog.querySelector(`input[type=radio][name="${CSS.escape(el.name)}"]:checked`);
    }
    return true;
  });
}

/**
 * Opens a `<dialog>` as a modal (showModal) for as long as the component is mounted and hands
 * every request to dismiss it (Escape, or the browser closing it) to `onDismiss`; the owner
 * decides by unmounting it. Focus goes to `focusInitial`'s choice and, on unmount, back to the
 * element that had it when the dialog opened. The browser keeps focus out of the page behind;
 * Tab from the last stop (Shift+Tab from the first) wraps round instead of leaving for the
 * browser's own toolbar.
 */
export function useTopLayerDialog(onDismiss: () => void, focusInitial?: () => void) {
  const ref = useRef<HTMLDialogElement>(null);
  const onDismissRef = useRef(onDismiss);
  const focusRef = useRef(focusInitial);
  useLayoutEffect(() => {
    onDismissRef.current = onDismiss;
    focusRef.current = focusInitial;
  });

  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) dialog.showModal();
    dialogOpened(dialog);
    focusRef.current?.();

    // Escape: the dialog stays open until its owner unmounts it (it may ask first).
    const onCancel = (e: Event) => {
      if (!e.cancelable) return;
      e.preventDefault();
      onDismissRef.current();
    };
    // Chromium closes a dialog without a cancelable cancel event when Escape is pressed twice
    // with no user activation in between (the close-watcher abuse rule). Reopen it and ask the
    // owner as for any Escape, so a dialog that must confirm first (a secret shown once) still can.
    const onClose = () => {
      if (!dialog.isConnected) return;
      dialog.showModal();
      dialogOpened(dialog);
      focusRef.current?.();
      onDismissRef.current();
    };
    const onKeyDown = (e: KeyboardEvent) => {
      if (e.key !== 'Tab' || e.defaultPrevented || !isTopDialog(dialog)) return;
      const stops = tabStops(dialog);
      const first = stops[0];
      const last = stops.at(-1);
      if (!first || !last) return;
      const active = document.activeElement as HTMLElement | null;
      const at = active ? stops.indexOf(active) : -1;
      if (e.shiftKey && (active === first || at < 0)) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && (active === last || (at < 0 && !dialog.contains(active)))) {
        e.preventDefault();
        first.focus();
      }
    };
    dialog.addEventListener('cancel', onCancel);
    dialog.addEventListener('close', onClose);
    dialog.addEventListener('keydown', onKeyDown);
    return () => {
      dialog.removeEventListener('keydown', onKeyDown);
      dialog.removeEventListener('cancel', onCancel);
      dialog.removeEventListener('close', onClose);
      dialogClosed(dialog);
      if (dialog.open) dialog.close();
      if (opener?.isConnected) opener.focus();
    };
  }, []);

  return ref;
}
