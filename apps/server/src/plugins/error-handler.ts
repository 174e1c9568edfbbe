import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { z } from 'zod';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { messages } from '@poi/shared/messages';
import { ERROR_CODES, type ApiError, type ErrorCode } from '@poi/shared/schemas/common';
import { isDatabaseUnavailable } from '../db/unavailable';
import { preferredLanguage, type Language } from '../lib/accept-language';
import { englishOf } from '../lib/english-messages';
import { AppError, type FieldError } from '../lib/errors';
import { findUnstorableText } from '../lib/storable-text';

const PUBLIC_API = /^\/api\/v1(?:[/?]|$)/;
const zodEnglishLocale = z.locales.en();

/** A validation issue's message in zod's English locale (for zod's own messages, which the English table does not hold). */
function zodEnglish(v: { keyword: string; params: Record<string, unknown> }): string | undefined {
  const answer = zodEnglishLocale.localeError({ ...v.params, code: v.keyword } as never);
  return typeof answer === 'string' ? answer : answer?.message;
}

/**
 * The language of a request's error answer: the public API (/api/v1) answers in English to a
 * caller who prefers it (Accept-Language, see lib/accept-language.ts); everything else, the
 * console API included, in Japanese.
 */
export function errorLanguage(request: { url: string; headers: FastifyRequest['headers'] }): Language {
  if (!PUBLIC_API.test(request.url)) return 'ja';
  const header = request.headers['accept-language'];
  return preferredLanguage(Array.isArray(header) ? header.join(',') : header);
}

/**
 * An error answer's body in the request's language: status, code and `errors[]` (its fields)
 * stay as they are, the messages are translated (lib/english-messages.ts). A message without
 * English stays Japanese, and is logged so that it is noticed.
 */
function errorBody(request: FastifyRequest, code: ErrorCode, message: string, errors?: FieldError[]): ApiError {
  const language = errorLanguage(request);
  if (language === 'en') {
    const english = (text: string) => {
      const translated = englishOf(text);
      if (translated === undefined && /[\u3040-\u30ff\u4e00-\u9fff]/.test(text)) request.log.warn({ message: text }, 'public API message without English');
      return translated ?? text;
    };
    message = english(message);
    errors = errors?.map((e) => ({ field: e.field, message: english(e.message) }));
  }
  const body: ApiError = { success: false, error: { code, message, request_id: String(request.id) } };
  if (errors?.length) body.errors = errors;
  return body;
}

/** Sends the error envelope (docs/architecture.md "Errors and the API envelope") in the request's language. */
export function sendError(reply: FastifyReply, status: number, code: ErrorCode, message: string, errors?: FieldError[]) {
  const body = errorBody(reply.request, code, message, errors);
  // An error describes one request at one moment: no cache may keep it.
  reply.header('Cache-Control', 'no-store');
  if (PUBLIC_API.test(reply.request.url)) {
    reply.header('Content-Language', errorLanguage(reply.request));
    // Also for an answer refused before routing, which the public API's own headers never reach.
    const vary = reply.getHeader('Vary');
    if (!/accept-language/i.test(String(vary ?? ''))) reply.header('Vary', vary ? `${String(vary)}, Accept-Language` : 'Accept-Language');
  }
  return reply.status(status).type('application/json; charset=utf-8').send(body);
}

type Answer = [ErrorCode, string];

/** Errors Fastify and its plugins raise before a handler runs, by their code. */
const FRAMEWORK_ERRORS: Record<string, Answer> = {
  FST_ERR_BAD_URL: ['BAD_REQUEST', messages.badUrl],
  FST_ERR_MAX_PARAM_LENGTH: ['URI_TOO_LONG', messages.uriTooLong],
  FST_ERR_CTP_INVALID_JSON_BODY: ['BAD_REQUEST', messages.invalidJson],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['BAD_REQUEST', messages.emptyJsonBody],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['UNSUPPORTED_MEDIA_TYPE', messages.unsupportedMediaType],
  FST_ERR_CTP_BODY_TOO_LARGE: ['PAYLOAD_TOO_LARGE', messages.payloadTooLarge],
  // @fastify/multipart answers 406 for a body that is not multipart; 415 is what that is.
  FST_INVALID_MULTIPART_CONTENT_TYPE: ['UNSUPPORTED_MEDIA_TYPE', messages.multipartRequired],
};

/** Any other client error, by its status; what is not listed becomes a plain 400. */
const CLIENT_ERRORS_BY_STATUS: Record<number, Answer> = {
  404: ['NOT_FOUND', messages.notFound],
  405: ['METHOD_NOT_ALLOWED', messages.methodNotAllowed],
  408: ['REQUEST_TIMEOUT', messages.timeoutError],
  413: ['PAYLOAD_TOO_LARGE', messages.payloadTooLarge],
  414: ['URI_TOO_LONG', messages.uriTooLong],
  415: ['UNSUPPORTED_MEDIA_TYPE', messages.unsupportedMediaType],
  429: ['RATE_LIMITED', messages.tooManyRequests],
  431: ['HEADERS_TOO_LARGE', messages.headersTooLarge],
};

/** The envelope answer of a client error (4xx) that is not one of ours. */
function clientErrorAnswer(error: { code?: string; statusCode?: number }): Answer {
  return (error.code && FRAMEWORK_ERRORS[error.code]) || CLIENT_ERRORS_BY_STATUS[error.statusCode ?? 400] || ['BAD_REQUEST', messages.badRequest];
}

/**
 * Fastify's `frameworkErrors`: a URL the router cannot decode (`%FF`) or a path parameter past
 * the router's limit never reaches a route, so no hook or error handler sees it.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  request.log.info({ code: error.code }, 'request refused before routing');
  reply.header('X-Request-Id', request.id);
  const [code, message] = clientErrorAnswer(error);
  void sendError(reply, ERROR_CODES[code], code, message);
}

/**
 * Node's `clientError`: a request line or headers Node's HTTP parser refuses (431 for headers
 * over its limit, 408 for a request that took too long) get the envelope on the raw socket.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const [code, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? clientErrorAnswer({ statusCode: 431 })
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? clientErrorAnswer({ statusCode: 408 })
        : clientErrorAnswer({ statusCode: 400 });
  const status = ERROR_CODES[code];
  const body = JSON.stringify({ success: false, error: { code, message } } satisfies ApiError);
  socket.end(
    `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request'}\r\n` +
      'Connection: close\r\nCache-Control: no-store\r\nContent-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** Maps every failure to the envelope of docs/architecture.md "Errors and the API envelope"; 5xx never leak details. */
export const errorHandlerPlugin = fp(async (app: FastifyInstance) => {
  // Text the database cannot store (U+0000, unpaired surrogates) is refused on every route once its
  // input is validated — schemas with their own field messages speak first — and before the
  // handler can reach the database (PostgreSQL's jsonb and text refuse it, or text would silently
  // hold U+FFFD instead).
  app.addHook('preHandler', async (request) => {
    for (const [context, input] of [['params', request.params], ['querystring', request.query], ['body', request.body]] as const) {
      const found = findUnstorableText(input);
      if (found !== undefined) {
        // Named like a validation error's field: the path inside the input, or the input itself.
        throw new AppError('VALIDATION_ERROR', messages.invalidCharacter, { errors: [{ field: found || context, message: messages.invalidCharacter }] });
      }
    }
  });

  app.setErrorHandler((error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof AppError) {
      if (error.options.retryAfterSeconds !== undefined) {
        reply.header('Retry-After', String(Math.max(1, Math.ceil(error.options.retryAfterSeconds))));
      }
      return sendError(reply, error.statusCode, error.code, error.message, error.options.errors);
    }

    if (hasZodFastifySchemaValidationErrors(error)) {
      const english = errorLanguage(request) === 'en';
      const errors = error.validation.map((v) => ({
        field: v.instancePath.replace(/^\//, '').replaceAll('/', '.') || String(error.validationContext ?? ''),
        // zod's own message (its Japanese locale) has no line in the English table: zod's English locale words it.
        message: (english && v.message && englishOf(v.message) === undefined && zodEnglish(v)) || (v.message ?? messages.validationFailed),
      }));
      return sendError(reply, 400, 'VALIDATION_ERROR', errors[0]?.message ?? messages.validationFailed, errors);
    }

    if (isResponseSerializationError(error)) {
      request.log.error({ err: error }, 'response did not match its schema');
      return sendError(reply, 500, 'INTERNAL_ERROR', messages.internalError);
    }

    // Text PostgreSQL cannot store in a value no check saw (a multipart field, a file's row): the
    // statement failed and its transaction rolled back, so nothing was written. drizzle wraps the
    // driver's error.
    const sqlState = (error as { cause?: { code?: unknown } }).cause?.code ?? error.code;
    if (sqlState === '22021' || sqlState === '22P05') {
      request.log.info({ err: error }, 'text the database cannot store');
      return sendError(reply, 400, 'VALIDATION_ERROR', messages.invalidCharacter);
    }

    const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (status >= 400 && status < 500) {
      // Malformed JSON, wrong content type, empty body, oversized body and the like.
      request.log.info({ err: error }, 'bad request');
      const [code, message] = clientErrorAnswer({ code: error.code, statusCode: status });
      return sendError(reply, ERROR_CODES[code], code, message);
    }
    // The database away (a restart, a failover, a killed connection): the pools reconnect on their
    // own, so the client is asked to come back rather than told the server failed.
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: { message: error.message, cause: (error as { cause?: { message?: string } }).cause?.message } }, 'database unavailable');
      reply.header('Retry-After', '2');
      return sendError(reply, 503, 'SERVICE_UNAVAILABLE', messages.databaseUnavailable);
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, 500, 'INTERNAL_ERROR', messages.internalError);
  });
});
