import { encodeExtended } from 'content-disposition';

/** A download's file name from its stem and extensions: downloadName('users', 'csv'), downloadName(name, 'csv', 'gz'). */
export const downloadName = (stem: string, ...extensions: string[]): string => [stem, ...extensions].join('.');

/** Characters no file system or header should get from a name: controls and the path / shell specials. */
const unsafe = (c: string): boolean => c.charCodeAt(0) < 0x20 || c === '\u007f' || '"\\/:*?<>|'.includes(c);
const clean = (name: string): string => Array.from(name, (c) => (unsafe(c) ? '_' : c)).join('');

/**
 * The ASCII name for clients that do not read filename*: the name's printable ASCII (spaces and
 * underscores folded to one _), else `fallbackStem`, with the name's extensions either way.
 */
export function asciiFileName(fileName: string, fallbackStem: string): string {
  const name = clean(fileName);
  const ext = /(\.[a-z]+)+$/i.exec(name)?.[0] ?? '';
  const stem = name.slice(0, name.length - ext.length).replace(/[^\x20-\x7e]/g, '').replace(/[\s_]+/g, '_').replace(/^_+|_+$/g, '');
  return `${stem || fallbackStem}${ext}`;
}

/**
 * Content-Disposition of every download (CSV, PDF, exports). filename* carries the real name,
 * UTF-8 encoded by the content-disposition package (RFC 8187); filename an ASCII name, given as
 * `ascii` or derived from the name (`asciiFileName`). Both are always sent and filename is always
 * quoted, even where the package's create() would send a bare ASCII name alone: downloads keep the
 * one shape the console and API clients already parse.
 */
export function attachment(fileName: string, fallback: { ascii: string } | { stem: string }): string {
  const name = clean(fileName);
  const ascii = 'ascii' in fallback ? clean(fallback.ascii).replace(/[^\x20-\x7e]/g, '_') : asciiFileName(name, fallback.stem);
  return `attachment; filename="${ascii}"; filename*=${encodeExtended(name)}`;
}
