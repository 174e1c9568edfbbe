/**
 * Where the toasts live. While a modal dialog is open, everything outside it is inert and
 * below it (the top layer): toasts raised from inside a dialog ("コピーしました") would be
 * hidden behind its backdrop and never announced. So the one element the ToastContainer is
 * portalled into moves into the topmost open dialog, and back out when it closes.
 */
let host: HTMLElement | null = null;
const openDialogs: HTMLElement[] = [];

export function toastHost(): HTMLElement {
  if (!host) {
    host = document.createElement('div');
    host.setAttribute('data-toast-host', '');
    document.body.append(host);
  }
  return host;
}

export function dialogOpened(dialog: HTMLElement) {
  const i = openDialogs.indexOf(dialog);
  if (i >= 0) openDialogs.splice(i, 1);
  openDialogs.push(dialog);
  // First in the dialog: the dialog's own controls keep their places (its footer stays last).
  dialog.prepend(toastHost());
}

export function dialogClosed(dialog: HTMLElement) {
  const i = openDialogs.indexOf(dialog);
  if (i >= 0) openDialogs.splice(i, 1);
  const top = openDialogs.at(-1);
  if (top) top.prepend(toastHost());
  else if (toastHost().parentElement !== document.body) document.body.append(toastHost());
}

/** Whether `dialog` is the topmost open dialog (the one keys and focus belong to). */
export const isTopDialog = (dialog: HTMLElement): boolean => openDialogs.at(-1) === dialog;
