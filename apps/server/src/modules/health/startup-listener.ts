import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { ApiError } from '@poi/shared/schemas/common';
import type { Lifecycle } from './lifecycle';
import { livenessBody } from './probes.routes';
import { notReady } from './readiness';

export interface StartupListener {
  /** Stops listening and ends its connections (the app listens on the port next). */
  close(): Promise<void>;
}

/**
 * The port, answered from the first moment of the process while the app is built (migrations
 * included, which can take minutes on a large database): /livez 200, /readyz 503 with the phase
 * (starting, migrating), anything else 503. Every answer closes its connection, so nothing is
 * left on this server when server.ts hands the port to the app (closed, then the app listens:
 * connections are refused for about a millisecond in between).
 */
export function listenEarly(options: { port: number; host: string; lifecycle: Lifecycle }): Promise<StartupListener> {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const pathname = (request.url ?? '/').split('?')[0];
    const phase = options.lifecycle.phase();
    const verdict = notReady(phase === 'migrating' || phase === 'draining' ? phase : 'starting');
    let status = 503;
    let body: unknown;
    if (pathname === '/livez') {
      status = 200;
      body = livenessBody;
    } else if (pathname === '/readyz') {
      body = { status: 'not_ready', reason: verdict.reason, message: verdict.message };
    } else {
      body = { success: false, error: { code: 'SERVICE_UNAVAILABLE', message: verdict.message } } satisfies ApiError;
    }
    const text = JSON.stringify(body);
    response.writeHead(status, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(text),
      'Cache-Control': 'no-store',
      Connection: 'close',
      ...(status === 503 ? { 'Retry-After': '1' } : {}),
    });
    response.end(request.method === 'HEAD' ? undefined : text);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve({
        close: () =>
          new Promise<void>((done) => {
            if (!server.listening) return done();
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
