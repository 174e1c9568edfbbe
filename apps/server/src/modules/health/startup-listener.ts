import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { ApiError } from '@poi/shared/schemas/common';
import type { Lifecycle } from './lifecycle';
import { livenessBody } from './probes.routes';
import { notReady } from './readiness';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** What Fastify passes to a serverFactory: its handler, and the server options it would have set. */
interface FactoryOptions {
  keepAliveTimeout?: number;
  requestTimeout?: number;
  connectionTimeout?: number;
  maxRequestsPerSocket?: number | null;
}

export interface StartupListener {
  /** Fastify's serverFactory (BuildOptions): the app is built on this listening server. */
  serverFactory(handler: Handler, options: FactoryOptions): Server;
  /** The app answers every request from now on (the port never closes in between). */
  handOver(): void;
  /** Stops accepting connections; before the hand-over also ends this server's own (they only ever hold a probe's answer). */
  close(): Promise<void>;
}

/**
 * The port, answered from the first moment of the process while the app is built (migrations
 * included, which can take minutes on a large database): /livez 200, /readyz 503 with the phase
 * (starting, migrating), anything else 503, each answer closing its connection. The app is then
 * built on this same server (Fastify's serverFactory) and takes its requests over: the listening
 * socket stays open throughout, so a probe arriving at the hand-over is never refused or reset
 * (closing one server and listening with another reset the connections waiting to be accepted).
 */
export function listenEarly(options: { port: number; host: string; lifecycle: Lifecycle }): Promise<StartupListener> {
  let appHandler: Handler | undefined;
  let handedOver = false;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (handedOver && appHandler) return appHandler(request, response);
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
        serverFactory(handler, factoryOptions) {
          appHandler = handler;
          // What Fastify sets on a server of its own.
          if (factoryOptions.keepAliveTimeout !== undefined) server.keepAliveTimeout = factoryOptions.keepAliveTimeout;
          if (factoryOptions.requestTimeout !== undefined) server.requestTimeout = factoryOptions.requestTimeout;
          server.setTimeout(factoryOptions.connectionTimeout ?? 0);
          if (factoryOptions.maxRequestsPerSocket) server.maxRequestsPerSocket = factoryOptions.maxRequestsPerSocket;
          return server;
        },
        handOver() {
          if (!appHandler) throw new Error('the app was not built on the start-up listener');
          handedOver = true;
        },
        close: () =>
          new Promise<void>((done) => {
            if (!server.listening) return done();
            server.close(() => done());
            if (!handedOver) server.closeAllConnections();
          }),
      });
    });
  });
}
