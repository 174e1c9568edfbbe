/** U+0000 (PostgreSQL text cannot hold it) or a UTF-16 surrogate with no partner (not a character at all). */
const UNSTORABLE = /[\0\p{Cs}]/u;

/** Whether PostgreSQL can store the string as text or inside jsonb. */
export const isStorableText = (value: string): boolean => !UNSTORABLE.test(value);

/**
 * The dotted path of the first string (value or object key) in a parsed request the database
 * could not store, or undefined when every string is fine. Walks objects and arrays to any depth.
 */
export function findUnstorableText(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return isStorableText(value) ? undefined : path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorableText(value[i], path ? `${path}.${i}` : String(i));
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const inner = path ? `${path}.${key}` : key;
      if (!isStorableText(key)) return inner;
      const found = findUnstorableText(item, inner);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
