import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

const metered = (request: FastifyRequest) => (request.routeOptions.config as { metered?: boolean } | undefined)?.metered === true;

/**
 * Fastify's request logs (an "incoming request" and a "request completed" line per request),
 * except for the metered public API's successful answers: thousands a second, each already stored
 * as a usage event, and its two JSON lines to stdout cost about 15 µs (some 8 % of a search's
 * server CPU). Such a request writes one line only when it does not answer 200: "request completed" with
 * the request (method, URL) in it. docs/operations.md "Errors, caching and logs".
 */
export class RequestLogs extends LogController {
  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    if (!metered(request)) super.incomingRequest(request, reply);
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (!metered(request)) return super.requestCompleted(error, request, reply);
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else if (reply.statusCode !== 200) reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
