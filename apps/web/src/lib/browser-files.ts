import { toast } from 'react-toastify';

/** Saves a blob as a file through a temporary link (exports, CSV downloads). */
export function downloadBlob(filename: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** Copies text to the clipboard and says so in a toast; answers whether it worked. */
export async function copyText(text: string, messages: { success: string; failure: string }): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    toast.success(messages.success);
    return true;
  } catch {
    toast.error(messages.failure);
    return false;
  }
}
