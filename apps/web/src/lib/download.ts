import { apiClient } from './api-client';
import { downloadBlob } from './browser-files';

/**
 * The file name a Content-Disposition header gives: the RFC 5987 `filename*` (UTF-8, percent-encoded)
 * first, else the plain `filename`; undefined when there is neither. A malformed percent escape
 * falls back to the plain name instead of throwing.
 */
export function fileNameOf(disposition: string | undefined): string | undefined {
  if (!disposition) return undefined;
  const star = /(?:^|;)\s*filename\*\s*=\s*UTF-8'[^']*'([^;\s]+)/i.exec(disposition)?.[1];
  if (star) {
    try {
      return decodeURIComponent(star);
    } catch {
      // fall through to the ASCII name
    }
  }
  const plain = /(?:^|;)\s*filename\s*=\s*(?:"([^"]*)"|([^;\s]+))/i.exec(disposition);
  return plain?.[1] || plain?.[2] || undefined;
}

/** Fetches a file through the api client (Bearer token) and saves it under the server's file name. */
export async function downloadFile(url: string, fallbackName: string, params?: Record<string, string>): Promise<void> {
  const res = await apiClient.get(url, { responseType: 'blob', params });
  downloadBlob(fileNameOf(res.headers['content-disposition']) ?? fallbackName, res.data as Blob);
}
