import { sql, type SQL } from 'drizzle-orm';

/*
 * Small SQL building blocks the repositories share. Values are always bound parameters, never
 * spliced into the statement text.
 */

/**
 * PostgreSQL's text form of an array of text, every item quoted and escaped: ['a', 'b"c'] →
 * '{"a","b\"c"}'. Quoting every item keeps commas, braces, spaces and the word NULL as data. It is
 * also what COPY (text format) reads for an array column, and what a text[] parameter of per-row
 * arrays carries before its `::text[]` cast.
 */
export const arrayLiteral = (items: readonly string[]): string => `{${items.map((t) => `"${t.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;

/**
 * A list as ONE bound parameter cast to an array: `x = ANY(${arrayParam(ids, 'uuid')})`. The
 * parameter is the text literal, so it reads the same on node-postgres and PGlite whatever each
 * driver does with a JavaScript array (drizzle would spread a bare array into a list of
 * parameters), and no item can end the literal early.
 */
export const arrayParam = (items: readonly string[], type: 'uuid' | 'text'): SQL => sql`${arrayLiteral(items)}::${sql.raw(type)}[]`;

/** Escapes LIKE / ILIKE wildcards (and the escape character) so user input matches literally. */
export const escapeLike = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);
