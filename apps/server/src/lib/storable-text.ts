/** U+0000 (PostgreSQL text cannot hold it) or a UTF-16 surrogate with no partner (not a character at all). */
const UNSTORABLE = /[\0\p{Cs}]/u;

/** Whether PostgreSQL can store the string as text or inside jsonb. */
export const isStorableText = (value: string): boolean => !UNSTORABLE.test(value);

/** Where a value sits: its key and its parent's place (the path is only spelt out for the one found). */
type Place = { key: string; parent: Place | undefined } | undefined;
const spell = (place: Place): string => {
  const keys: string[] = [];
  for (let p = place; p; p = p.parent) keys.push(p.key);
  return keys.reverse().join('.');
};
/** Stands for a key that is itself unstorable: found when its turn comes. */
const BAD_KEY = '\0';

/**
 * The dotted path of the first string (value or object key) in a parsed request the database
 * could not store, or undefined when every string is fine. Walks objects and arrays to any depth
 * with a stack of its own, not by recursion: a JSON body 5,000 arrays deep (which JSON.parse
 * accepts) overflowed the call stack here and answered 500 on every route.
 */
export function findUnstorableText(value: unknown, path = ''): string | undefined {
  // Depth first, children in order: the first bad string in document order is the one named.
  const stack: Array<[unknown, Place]> = [[value, path ? { key: path, parent: undefined } : undefined]];
  while (stack.length) {
    const [item, place] = stack.pop()!;
    if (typeof item === 'string') {
      if (!isStorableText(item)) return spell(place);
    } else if (ArrayBuffer.isView(item)) {
      // Raw bytes (the Stripe webhook's body) hold no text to check.
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push([item[i], { key: String(i), parent: place }]);
    } else if (item && typeof item === 'object') {
      const entries = Object.entries(item);
      // A bad key is named before anything inside its value, and before later keys.
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, inner] = entries[i]!;
        stack.push([isStorableText(key) ? inner : BAD_KEY, { key, parent: place }]);
      }
    }
  }
  return undefined;
}
