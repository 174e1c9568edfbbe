import { isUtf8 } from 'node:buffer';
import { createGunzip } from 'node:zlib';
import { IMPORT_MAX_EXPANDED_BYTES } from '@poi/shared/limits';
import { messages } from '@poi/shared/messages';
import { ImportFormatError, type ImportEncoding } from './import-parser';

/** A gzip upload that expands past the limit (a zip bomb or a real but too large file): 413. */
export class ImportExpandedTooLargeError extends Error {}

/** An uploaded file (at most 10 MB as sent), ready to be read as many times as needed. */
export interface ImportSource {
  compressed: boolean;
  /** Decided on the whole file: UTF-8 when every byte decodes strictly as UTF-8, else Shift_JIS (CP932). */
  encoding: ImportEncoding;
  /** The file's bytes, decompressed if it was gzip, in chunks. */
  chunks(): AsyncGenerator<Uint8Array>;
}

const CHUNK = 64 * 1024;
const isGzip = (b: Buffer) => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;

async function* slices(upload: Buffer): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < upload.length; at += CHUNK) yield upload.subarray(at, at + CHUNK);
}

/** Streams the decompressed bytes, stopping as soon as they pass the limit. */
async function* gunzipped(upload: Buffer, maxBytes: number): AsyncGenerator<Uint8Array> {
  const gunzip = createGunzip({ chunkSize: CHUNK });
  gunzip.end(upload);
  let total = 0;
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > maxBytes) throw new ImportExpandedTooLargeError(messages.importExpandedTooLarge);
      yield chunk;
    }
  } catch (err) {
    if (err instanceof ImportExpandedTooLargeError) throw err;
    throw new ImportFormatError(messages.importGzipBroken);
  } finally {
    gunzip.destroy();
  }
}

/**
 * Looks at the whole upload before any row is read: a gzip file is expanded once (bounded by
 * `maxExpandedBytes`, so a zip bomb costs at most that much CPU and no memory) to check its size
 * and encoding, and expanded again, streamed, for the parser. A prefix can never decide the
 * encoding: Excel's Shift_JIS files often start with pages of ASCII shop codes.
 */
export async function prepareImportSource(upload: Buffer, maxExpandedBytes = IMPORT_MAX_EXPANDED_BYTES): Promise<ImportSource> {
  if (!isGzip(upload)) {
    return { compressed: false, encoding: isUtf8(upload) ? 'utf-8' : 'shift_jis', chunks: () => slices(upload) };
  }
  const strict = new TextDecoder('utf-8', { fatal: true });
  let utf8 = true;
  for await (const chunk of gunzipped(upload, maxExpandedBytes)) {
    if (!utf8) continue;
    try {
      strict.decode(chunk, { stream: true });
    } catch {
      utf8 = false;
    }
  }
  if (utf8) {
    try {
      strict.decode();
    } catch {
      utf8 = false;
    }
  }
  return { compressed: true, encoding: utf8 ? 'utf-8' : 'shift_jis', chunks: () => gunzipped(upload, maxExpandedBytes) };
}
