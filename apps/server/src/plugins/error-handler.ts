import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { messages } from '@poi/shared/messages';
import type { ApiError, ErrorCode } from '@poi/shared/schemas/common';
import { AppError, type FieldError } from '../lib/errors';

function send(reply: FastifyReply, status: number, code: ErrorCode, message: string, errors?: FieldError[]) {
  const body: ApiError = { success: false, error: { code, message, request_id: String(reply.request.id) } };
  if (errors?.length) body.errors = errors;
  return reply.status(status).type('application/json; charset=utf-8').send(body);
}

/** Maps every failure to the envelope of ARCHITECTURE.md "API conventions"; 5xx never leak details. */
export const errorHandlerPlugin = fp(async (app: FastifyInstance) => {
  app.setErrorHandler((error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof AppError) {
      if (error.options.retryAfterSeconds !== undefined) {
        reply.header('Retry-After', String(Math.max(1, Math.ceil(error.options.retryAfterSeconds))));
      }
      return send(reply, error.statusCode, error.code, error.message, error.options.errors);
    }

    if (hasZodFastifySchemaValidationErrors(error)) {
      const errors = error.validation.map((v) => ({
        field: v.instancePath.replace(/^\//, '').replaceAll('/', '.') || String(error.validationContext ?? ''),
        message: v.message ?? messages.validationFailed,
      }));
      return send(reply, 400, 'VALIDATION_ERROR', errors[0]?.message ?? messages.validationFailed, errors);
    }

    if (isResponseSerializationError(error)) {
      request.log.error({ err: error }, 'response did not match its schema');
      return send(reply, 500, 'INTERNAL_ERROR', messages.internalError);
    }

    // Text PostgreSQL cannot store (U+0000) in a field no schema refused: the statement failed
    // and its transaction rolled back, so nothing was written. drizzle wraps the driver's error.
    const sqlState = (error as { cause?: { code?: unknown } }).cause?.code ?? error.code;
    if (sqlState === '22021' || sqlState === '22P05') {
      request.log.info({ err: error }, 'text the database cannot store');
      return send(reply, 400, 'VALIDATION_ERROR', messages.invalidCharacter);
    }

    const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (status === 413 || error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return send(reply, 413, 'PAYLOAD_TOO_LARGE', messages.payloadTooLarge);
    }
    if (status === 429) {
      return send(reply, 429, 'RATE_LIMITED', messages.tooManyRequests);
    }
    if (status === 404) return send(reply, 404, 'NOT_FOUND', messages.notFound);
    if (status >= 400 && status < 500) {
      // Malformed JSON, wrong content type, empty body and the like.
      request.log.info({ err: error }, 'bad request');
      return send(reply, 400, 'BAD_REQUEST', messages.validationFailed);
    }
    request.log.error({ err: error }, 'unhandled error');
    return send(reply, 500, 'INTERNAL_ERROR', messages.internalError);
  });

});
