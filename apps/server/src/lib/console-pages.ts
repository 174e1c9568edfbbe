import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** dist/console-routes.json as the console's build writes it (apps/web/src/app/route-modules.ts). */
interface ConsoleRoutes {
  signedIn: string[];
  signedInPlaceholder: string;
}

/** One page as sent: the HTML and its brotli and gzip encodings, made once at start-up. */
export interface ConsolePage {
  html: Buffer;
  br: Buffer;
  gzip: Buffer;
}

const encode = (html: string): ConsolePage => {
  const body = Buffer.from(html);
  return {
    html: body,
    br: brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
    gzip: gzipSync(body, { level: 9 }),
  };
};

/** A route path as a pattern: `:name` stands for one non-empty segment. */
const patternOf = (route: string) => new RegExp(`^${route.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z]+/g, '[^/]+')}$`);

/**
 * The console's index.html for each history-mode path: for a signed-in screen of the console's
 * route table, with the shell's top bar already in #root, so the page paints before its scripts
 * have arrived (React replaces it on its first render); for any other path as built. Without a
 * console-routes.json (an older build) every path gets index.html as built.
 */
export function loadConsolePages(webDistDir: string): (pathname: string) => ConsolePage {
  const index = readFileSync(path.join(webDistDir, 'index.html'), 'utf8');
  const plain = encode(index);
  const listFile = path.join(webDistDir, 'console-routes.json');
  if (!existsSync(listFile)) return () => plain;
  const list = JSON.parse(readFileSync(listFile, 'utf8')) as ConsoleRoutes;
  const signedIn = encode(index.replace('<div id="root"></div>', `<div id="root">${list.signedInPlaceholder}</div>`));
  const patterns = list.signedIn.map(patternOf);
  return (pathname) => {
    const trimmed = pathname.length > 1 ? pathname.replace(/\/$/, '') : pathname;
    return patterns.some((p) => p.test(trimmed)) ? signedIn : plain;
  };
}

/** The encoding to send for an Accept-Encoding header: brotli, then gzip, else none. */
export function pickEncoding(acceptEncoding: string | undefined): 'br' | 'gzip' | undefined {
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    accepted.set(name, q === undefined ? 1 : Number(q));
  }
  const allows = (name: string) => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0;
  if (allows('br')) return 'br';
  if (allows('gzip')) return 'gzip';
  return undefined;
}
