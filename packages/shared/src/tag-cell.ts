/**
 * Tags in one text cell (CSV import/export, a tags string in JSON): separated by `|`; a `|` or
 * `\` inside a tag is written `\|` or `\\`. Reading is lenient: a backslash before any other
 * character is kept as it is, so hand-written cells such as `C:\data|x` read as typed.
 * Commas and 、 are ordinary characters of a tag.
 */
export const TAG_SEPARATOR = '|';

export function formatTagCell(tags: readonly string[]): string {
  return tags.map((t) => t.replace(/[\\|]/g, '\\$&')).join(TAG_SEPARATOR);
}

export function parseTagCell(cell: string): string[] {
  const tags: string[] = [];
  let current = '';
  for (let i = 0; i < cell.length; i++) {
    const c = cell[i]!;
    const next = cell[i + 1];
    if (c === '\\' && (next === '\\' || next === TAG_SEPARATOR)) {
      current += next;
      i++;
    } else if (c === TAG_SEPARATOR) {
      tags.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  tags.push(current);
  return tags;
}
