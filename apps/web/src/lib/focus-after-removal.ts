/** How long to wait for the trigger to leave the page (the list is refetched after the change). */
const WATCH_MS = 10_000;

const ACTION = 'button:not([disabled]), a[href]';

/** The first action of a row (table row or list item) next to the trigger's, after it, else before it. */
function neighbourActions(trigger: HTMLElement): HTMLElement[] {
  const row = trigger.closest('tr, li');
  if (!row) return [];
  const found: HTMLElement[] = [];
  for (let r = row.nextElementSibling; r; r = r.nextElementSibling) {
    const action = r.querySelector<HTMLElement>(ACTION);
    if (action) {
      found.push(action);
      break;
    }
  }
  for (let r = row.previousElementSibling; r; r = r.previousElementSibling) {
    const action = r.querySelector<HTMLElement>(ACTION);
    if (action) {
      found.push(action);
      break;
    }
  }
  return found;
}

/** Focuses an element that may not take focus by itself (a heading): tabIndex -1 first. */
export function focusElement(el: HTMLElement | null | undefined): boolean {
  if (!el?.isConnected) return false;
  if (el.tabIndex < 0 && !el.hasAttribute('tabindex')) el.setAttribute('tabindex', '-1');
  el.focus();
  return document.activeElement === el;
}

/**
 * After a change that may remove the element that triggered it (a row's 「入金を確認」 once the
 * invoice is paid, 「承認する」 once the application is approved), keeps focus from falling to
 * <body>: while the trigger is on the page nothing happens (the dialog gives focus back to it);
 * when it leaves with focus gone, focus moves to the next row's action (else the previous row's),
 * else to `fallback()` (the list's heading, the dialog's next action). Watches for a few seconds.
 */
export function focusAfterRemoval(trigger: Element | null, fallback: () => HTMLElement | null | undefined): void {
  if (!(trigger instanceof HTMLElement)) return;
  const neighbours = neighbourActions(trigger);
  // The dialog the trigger lives in (a detail dialog's footer), if any: focus in another dialog
  // (the confirmation still closing) is not yet where it ends up.
  const home = trigger.closest('dialog');
  const lost = () => !document.activeElement || document.activeElement === document.body || !document.activeElement.isConnected;
  const elsewhere = () => {
    const dialog = document.activeElement?.closest('dialog');
    return !!dialog && dialog !== home;
  };
  const settle = () => {
    if (trigger.isConnected || elsewhere()) return false;
    if (lost()) {
      const next = neighbours.find((n) => n.isConnected);
      if (!(next && focusElement(next))) focusElement(fallback());
    }
    return true;
  };
  if (settle()) return;
  const observer = new MutationObserver(() => {
    if (settle()) observer.disconnect();
  });
  observer.observe(document.body, { childList: true, subtree: true });
  setTimeout(() => observer.disconnect(), WATCH_MS);
}
