import axios, { AxiosError, type AxiosInstance, type AxiosRequestConfig, type InternalAxiosRequestConfig } from 'axios';
import { API_TIMEOUT_MS, LOG_TIMEOUT_MS, STORAGE_TOKEN_KEY, STORAGE_USER_KEY } from '@poi/shared/limits';
import type { ApiError } from '@poi/shared/schemas/common';
import { redactSecrets, type FrontendLogBody } from '@poi/shared/schemas/logs';
import { authStore } from './auth-store';

export const LOG_ENDPOINT = '/console/v1/logs/frontend';

export interface ApiClientOptions {
  /** What a 401 does once the stored token and user are removed (the app clears its session). */
  onUnauthorized: () => void;
}

/** The console's HTTP client (docs/conventions.md "The console's API layer"): base URL, timeout, Bearer, 401 rule, error log. */
export function createApiClient({ onUnauthorized }: ApiClientOptions): AxiosInstance {
  const client = axios.create({
    baseURL: import.meta.env.VITE_API_BASE_URL ?? '',
    timeout: API_TIMEOUT_MS,
    headers: { 'Content-Type': 'application/json' },
  });

  client.interceptors.request.use((config: InternalAxiosRequestConfig) => {
    const token = window.localStorage.getItem(STORAGE_TOKEN_KEY);
    if (token) config.headers.set('Authorization', `Bearer ${token}`);
    return config;
  });

  client.interceptors.response.use(
    (response) => response,
    (error: unknown) => {
      if (axios.isAxiosError(error)) {
        if (!isLogRequest(error.config)) enqueueFrontendLog(buildLog(error));
        if (error.response?.status === 401) {
          window.localStorage.removeItem(STORAGE_TOKEN_KEY);
          window.localStorage.removeItem(STORAGE_USER_KEY);
          onUnauthorized();
        }
      }
      return Promise.reject(error);
    },
  );
  return client;
}

// The one instance. On any 401 the auth store clears the session and the guards go to the login page.
export const apiClient = createApiClient({ onUnauthorized: () => authStore.clear() });

/** A GET whose answer is read through the shared response schema; the envelope's `data` is returned. */
export async function getParsed<T>(url: string, schema: { parse(value: unknown): { data: T } }, params?: AxiosRequestConfig['params']): Promise<T> {
  return schema.parse((await apiClient.get(url, params === undefined ? undefined : { params })).data).data;
}

const isLogRequest = (config: AxiosRequestConfig | undefined) => !!config?.url && config.url.includes(LOG_ENDPOINT);

/** The server's Japanese message (`error.message`) when there is one, else the screen's fallback. */
export function getErrorMessage(error: unknown, fallback: string): string {
  if (axios.isAxiosError<ApiError>(error)) {
    const message = error.response?.data?.error?.message;
    if (typeof message === 'string' && message) return message;
  }
  return fallback;
}

/** For POI calls the field errors come first, then the message, then the fallback. */
export function getFieldErrorMessage(error: unknown, fallback: string): string {
  if (axios.isAxiosError<ApiError>(error)) {
    const fields = error.response?.data?.errors;
    if (fields?.length) return fields.map((f) => f.message).join('\n');
  }
  return getErrorMessage(error, fallback);
}

/** The Retry-After of a 429, in seconds. */
export function retryAfterSeconds(error: unknown): number | undefined {
  if (!axios.isAxiosError(error) || error.response?.status !== 429) return undefined;
  const value = Number(error.response.headers['retry-after']);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}

export const statusOf = (error: unknown): number | undefined => (axios.isAxiosError(error) ? error.response?.status : undefined);

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

export function buildLog(error: AxiosError): FrontendLogBody {
  const config = error.config;
  return {
    type: error.response ? 'api_error' : error.code === AxiosError.ECONNABORTED ? 'timeout' : 'network_error',
    message: clip(error.message, 1000),
    endpoint: clip(config?.url, 500),
    method: clip(config?.method?.toUpperCase(), 10),
    status: error.response?.status ?? null,
    statusText: clip(error.response?.statusText, 200),
    requestBody: clip(redactSecrets(parseMaybeJson(config?.data))),
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
