/** One field's reason in a 400 answer (`errors[]`). */
export interface PoiFieldError {
  field: string;
  message: string;
}

/** What kind of failure an error is, for a `switch` instead of `instanceof` chains. */
export type PoiErrorKind = 'validation' | 'auth' | 'payment' | 'forbidden' | 'not_found' | 'rate_limit' | 'unavailable' | 'server';

const KINDS: Record<number, PoiErrorKind> = { 400: 'validation', 401: 'auth', 402: 'payment', 403: 'forbidden', 404: 'not_found', 429: 'rate_limit', 503: 'unavailable' };

export interface PoiApiErrorInit {
  status: number;
  code: string;
  message: string;
  requestId?: string;
  errors?: PoiFieldError[];
  /** Seconds the server asked to wait (Retry-After), when it said so. */
  retryAfterSeconds?: number;
}

/**
 * An error answer of the API (any status but 2xx): the server's code and message (Japanese, or
 * English with `language: 'en'`), the request id to quote to support, and for a 400 each field's
 * reason. Subclasses per kind; `kind` says the same for code that prefers a switch.
 */
export class PoiApiError extends Error {
  override readonly name: string = 'PoiApiError';
  readonly kind: PoiErrorKind;
  readonly status: number;
  /** The API's error code, e.g. VALIDATION_ERROR, UNAUTHORIZED, NOT_FOUND, RATE_LIMITED. */
  readonly code: string;
  /** The answer's request_id (also its X-Request-Id header). */
  readonly requestId: string | undefined;
  readonly errors: PoiFieldError[];
  readonly retryAfterSeconds: number | undefined;

  constructor(init: PoiApiErrorInit) {
    super(init.message);
    this.status = init.status;
    this.kind = KINDS[init.status] ?? 'server';
    this.code = init.code;
    this.requestId = init.requestId;
    this.errors = init.errors ?? [];
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

/** 400: a parameter is wrong; `errors[]` names each field. Never retried. */
export class PoiValidationError extends PoiApiError {
  override readonly name = 'PoiValidationError';
}

/** 401: no API key, or an unknown, revoked or expired one. */
export class PoiAuthError extends PoiApiError {
  override readonly name = 'PoiAuthError';
}

/** 404: an unknown or unavailable dataset, or a path the API does not have. */
export class PoiNotFoundError extends PoiApiError {
  override readonly name = 'PoiNotFoundError';
}

/** 429: over the per-minute limit; thrown after the retries ran out. (A monthly budget reached is a 402.) */
export class PoiRateLimitError extends PoiApiError {
  override readonly name = 'PoiRateLimitError';
}

/** 503: the service is briefly unavailable; thrown after the retries ran out. */
export class PoiUnavailableError extends PoiApiError {
  override readonly name = 'PoiUnavailableError';
}

const CLASSES: Record<number, typeof PoiApiError> = {
  400: PoiValidationError,
  401: PoiAuthError,
  404: PoiNotFoundError,
  429: PoiRateLimitError,
  503: PoiUnavailableError,
};

/** The typed error for an error answer and its (already read) body. */
export function errorOf(response: Response, body: unknown): PoiApiError {
  const envelope = (typeof body === 'object' && body !== null ? body : {}) as {
    error?: { code?: unknown; message?: unknown; request_id?: unknown };
    errors?: unknown;
  };
  const error = envelope.error ?? {};
  const retryAfter = Number(response.headers.get('retry-after') ?? NaN);
  const Class = CLASSES[response.status] ?? PoiApiError;
  return new Class({
    status: response.status,
    code: typeof error.code === 'string' ? error.code : `HTTP_${response.status}`,
    // An answer that is not the API's (a proxy's HTML page) still says what happened.
    message: typeof error.message === 'string' ? error.message : `HTTP ${response.status} ${response.statusText}`.trim(),
    requestId: typeof error.request_id === 'string' ? error.request_id : (response.headers.get('x-request-id') ?? undefined),
    errors: Array.isArray(envelope.errors) ? (envelope.errors as PoiFieldError[]) : [],
    retryAfterSeconds: Number.isFinite(retryAfter) ? retryAfter : undefined,
  });
}
