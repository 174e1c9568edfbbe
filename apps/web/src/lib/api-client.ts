import { API_TIMEOUT_MS, LOG_TIMEOUT_MS, STORAGE_TOKEN_KEY, STORAGE_USER_KEY } from '@poi/shared/limits';
import type { ApiError } from '@poi/shared/schemas/common';
import { redactSecrets, type FrontendLogBody } from '@poi/shared/schemas/logs';
import { authStore } from './auth-store';

export const LOG_ENDPOINT = '/console/v1/logs/frontend';

type ParamValue = string | number | boolean | null | undefined | ReadonlyArray<string | number | boolean>;
/** Query parameters: undefined and null are left out, an array repeats its key. */
export type QueryParams = Record<string, ParamValue>;

export interface RequestConfig {
  params?: QueryParams;
  signal?: AbortSignal;
  /** Milliseconds before the call fails with code ECONNABORTED (default API_TIMEOUT_MS). */
  timeout?: number;
  headers?: Record<string, string>;
  /** 'blob' for files; otherwise a JSON body is parsed (any other text is kept as it is). */
  responseType?: 'json' | 'blob';
}

export interface ApiResponse<T = unknown> {
  data: T;
  status: number;
  statusText: string;
  /** Response headers, lower-case names. */
  headers: Record<string, string>;
}

/** Why a call failed: an answer other than 2xx (with `response`), a timeout, a network error, or a cancellation. */
export type ApiErrorCode = 'ERR_BAD_RESPONSE' | 'ECONNABORTED' | 'ERR_NETWORK' | 'ERR_CANCELED';

/** A failed console API call: what was sent (`config`) and, when the server answered, its answer. */
export class ApiRequestError extends Error {
  readonly isApiRequestError = true;
  constructor(
    message: string,
    readonly code: ApiErrorCode,
    readonly config: { url: string; method: string; data?: unknown },
    readonly response?: ApiResponse,
  ) {
    super(message);
    this.name = 'ApiRequestError';
  }
}

/** Also true for a look-alike object (tests build refusals by hand). */
export function isApiRequestError<T = unknown>(error: unknown): error is ApiRequestError & { response?: ApiResponse<T> } {
  return error instanceof ApiRequestError || (typeof error === 'object' && error !== null && (error as { isApiRequestError?: unknown }).isApiRequestError === true);
}

export interface ApiClient {
  get<T = unknown>(url: string, config?: RequestConfig): Promise<ApiResponse<T>>;
  delete<T = unknown>(url: string, config?: RequestConfig): Promise<ApiResponse<T>>;
  post<T = unknown>(url: string, body?: unknown, config?: RequestConfig): Promise<ApiResponse<T>>;
  patch<T = unknown>(url: string, body?: unknown, config?: RequestConfig): Promise<ApiResponse<T>>;
  put<T = unknown>(url: string, body?: unknown, config?: RequestConfig): Promise<ApiResponse<T>>;
  readonly timeout: number;
}

export interface ApiClientOptions {
  /** What a 401 does once the stored token and user are removed (the app clears its session). */
  onUnauthorized: () => void;
}

const BASE_URL: string = import.meta.env.VITE_API_BASE_URL ?? '';

function withParams(url: string, params: QueryParams | undefined): string {
  if (!params) return url;
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) value.forEach((v) => query.append(key, String(v)));
    else query.append(key, String(value));
  }
  const text = query.toString();
  return text ? `${url}${url.includes('?') ? '&' : '?'}${text}` : url;
}

async function readBody(res: Response, responseType: RequestConfig['responseType']): Promise<unknown> {
  if (responseType === 'blob' && res.ok) return res.blob();
  const text = await res.text();
  if (!text) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * The console's HTTP client (docs/conventions.md "The console's API layer"), on the browser's
 * fetch: base URL, timeout, Bearer, 401 rule, error log. An answer other than 2xx rejects with
 * an ApiRequestError carrying it.
 */
export function createApiClient({ onUnauthorized }: ApiClientOptions): ApiClient {
  async function request<T>(method: string, url: string, body: unknown, config: RequestConfig = {}): Promise<ApiResponse<T>> {
    const timeout = config.timeout ?? API_TIMEOUT_MS;
    const headers: Record<string, string> = { ...config.headers };
    const token = window.localStorage.getItem(STORAGE_TOKEN_KEY);
    if (token) headers.Authorization = `Bearer ${token}`;
    let payload: BodyInit | undefined;
    if (body instanceof FormData) {
      // The browser writes the multipart Content-Type with its boundary.
      delete headers['Content-Type'];
      payload = body;
    } else if (body !== undefined) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      headers['Content-Type'] ??= 'application/json';
    }
    const sent = { url, method, data: payload instanceof FormData ? undefined : payload };
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeout);
    const cancel = () => controller.abort();
    config.signal?.addEventListener('abort', cancel);
    let failure: ApiRequestError;
    try {
      const res = await fetch(BASE_URL + withParams(url, config.params), { method, headers, body: payload, signal: controller.signal });
      const response: ApiResponse<T> = {
        data: (await readBody(res, config.responseType)) as T,
        status: res.status,
        statusText: res.statusText,
        headers: Object.fromEntries([...res.headers].map(([k, v]) => [k.toLowerCase(), v])),
      };
      if (res.ok) return response;
      failure = new ApiRequestError(`Request failed with status code ${res.status}`, 'ERR_BAD_RESPONSE', sent, response as ApiResponse);
    } catch (err) {
      if (config.signal?.aborted) throw new ApiRequestError('canceled', 'ERR_CANCELED', sent);
      failure = timedOut
        ? new ApiRequestError(`timeout of ${timeout}ms exceeded`, 'ECONNABORTED', sent)
        : new ApiRequestError(err instanceof Error ? err.message : 'Network Error', 'ERR_NETWORK', sent);
    } finally {
      clearTimeout(timer);
      config.signal?.removeEventListener('abort', cancel);
    }
    if (!url.includes(LOG_ENDPOINT)) enqueueFrontendLog(buildLog(failure));
    if (failure.response?.status === 401) {
      window.localStorage.removeItem(STORAGE_TOKEN_KEY);
      window.localStorage.removeItem(STORAGE_USER_KEY);
      onUnauthorized();
    }
    throw failure;
  }
  return {
    get: (url, config) => request('GET', url, undefined, config),
    delete: (url, config) => request('DELETE', url, undefined, config),
    post: (url, body, config) => request('POST', url, body, config),
    patch: (url, body, config) => request('PATCH', url, body, config),
    put: (url, body, config) => request('PUT', url, body, config),
    timeout: API_TIMEOUT_MS,
  };
}

// The one instance. On any 401 the auth store clears the session and the guards go to the login page.
export const apiClient = createApiClient({ onUnauthorized: () => authStore.clear() });

/** A GET whose answer is read through the shared response schema; the envelope's `data` is returned. */
export async function getParsed<T>(url: string, schema: { parse(value: unknown): { data: T } }, params?: QueryParams): Promise<T> {
  return schema.parse((await apiClient.get(url, params === undefined ? undefined : { params })).data).data;
}

/** The server's Japanese message (`error.message`) when there is one, else the screen's fallback. */
export function getErrorMessage(error: unknown, fallback: string): string {
  if (isApiRequestError<ApiError>(error)) {
    const message = error.response?.data?.error?.message;
    if (typeof message === 'string' && message) return message;
  }
  return fallback;
}

/** For POI calls the field errors come first, then the message, then the fallback. */
export function getFieldErrorMessage(error: unknown, fallback: string): string {
  if (isApiRequestError<ApiError>(error)) {
    const fields = error.response?.data?.errors;
    if (fields?.length) return fields.map((f) => f.message).join('\n');
  }
  return getErrorMessage(error, fallback);
}

/** The Retry-After of a 429, in seconds. */
export function retryAfterSeconds(error: unknown): number | undefined {
  if (!isApiRequestError(error) || error.response?.status !== 429) return undefined;
  const value = Number(error.response.headers['retry-after']);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}

export const statusOf = (error: unknown): number | undefined => (isApiRequestError(error) ? error.response?.status : undefined);

function parseMaybeJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

const clip = (value: unknown, max = 4000): string | null => {
  if (value === undefined || value === null) return null;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
};

function currentUserId(): string | null {
  try {
    const raw = window.localStorage.getItem(STORAGE_USER_KEY);
    return raw ? ((JSON.parse(raw) as { id?: string }).id ?? null) : null;
  } catch {
    return null;
  }
}

export function buildLog(error: ApiRequestError): FrontendLogBody {
  const config = error.config;
  return {
    type: error.response ? 'api_error' : error.code === 'ECONNABORTED' ? 'timeout' : 'network_error',
    message: clip(error.message, 1000),
    endpoint: clip(config.url, 500),
    method: clip(config.method.toUpperCase(), 10),
    status: error.response?.status ?? null,
    statusText: clip(error.response?.statusText, 200),
    requestBody: clip(redactSecrets(parseMaybeJson(config.data))),
    responseBody: clip(redactSecrets(error.response?.data)),
    timestamp: new Date().toISOString(),
    url: clip(window.location.href, 2000),
    userId: currentUserId(),
    hasAuthToken: !!window.localStorage.getItem(STORAGE_TOKEN_KEY),
    browserInfo: {
      userAgent: clip(navigator.userAgent, 500),
      language: clip(navigator.language, 50),
      platform: clip(navigator.platform, 100),
      screenWidth: window.screen?.width,
      screenHeight: window.screen?.height,
      windowWidth: window.innerWidth,
      windowHeight: window.innerHeight,
    },
  };
}

const logQueue: FrontendLogBody[] = [];
let sending = false;
const LOG_QUEUE_MAX = 50;

/** Queues a log; logs go out one at a time, and a failed log is dropped, never retried or logged. */
export function enqueueFrontendLog(log: FrontendLogBody): void {
  if (logQueue.length >= LOG_QUEUE_MAX) return;
  logQueue.push(log);
  void drainLogQueue();
}

async function drainLogQueue(): Promise<void> {
  if (sending) return;
  sending = true;
  try {
    for (let log = logQueue.shift(); log; log = logQueue.shift()) {
      try {
        await apiClient.post(LOG_ENDPOINT, log, { timeout: LOG_TIMEOUT_MS });
      } catch {
        // A log that cannot be sent is not worth another error.
      }
    }
  } finally {
    sending = false;
  }
}

/** For tests: resolves when the queue is empty. */
export async function flushFrontendLogs(): Promise<void> {
  while (sending || logQueue.length) await new Promise((r) => setTimeout(r, 5));
}
