import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import helmet, { type HelmetOptions } from 'helmet';

/** The headers helmet's middleware writes with these options: the ones it sets, and the ones it removes. */
export function helmetHeaders(options: HelmetOptions): { set: Array<[string, string]>; remove: string[] } {
  const set = new Map<string, string>();
  const remove: string[] = [];
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => set.set(name, String(value)),
    removeHeader: (name: string) => remove.push(name),
  };
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (err?: unknown) => {
    if (err) throw err;
  });
  return { set: [...set], remove };
}

/**
 * Helmet's security headers on every answer, worked out once at start-up. @fastify/helmet built
 * helmet's middleware anew for each request (parsing the whole CSP each time: ~6 % of a public
 * search's CPU); with static options (no nonces, no functions as directives) every answer gets the
 * same headers, so they are recorded once and set as they are.
 */
export const securityHeadersPlugin = fp(async (app: FastifyInstance, options: HelmetOptions) => {
  const { set, remove } = helmetHeaders(options);
  app.addHook('onRequest', (_request, reply, done) => {
    const raw = reply.raw;
    for (const [name, value] of set) raw.setHeader(name, value);
    for (const name of remove) raw.removeHeader(name);
    done();
  });
});
