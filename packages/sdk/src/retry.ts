/** The statuses worth retrying: the request was not served (429 over a limit, 503 unavailable), so not billed. */
export const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** Without a Retry-After: 0.5 s, 1 s, 2 s, … (no jitter: the same answers wait the same). */
const FIRST_BACKOFF_MS = 500;

/**
 * How long to wait before retry number `attempt` (0-based): what Retry-After asks (seconds, or an
 * HTTP date), else an exponential backoff. `undefined` when the wait would exceed `maxDelayMs`:
 * retrying sooner than the server asked would only be refused again.
 */
export function retryDelayMs(retryAfter: string | null, attempt: number, maxDelayMs: number, now = Date.now()): number | undefined {
  let ms = FIRST_BACKOFF_MS * 2 ** attempt;
  const value = retryAfter?.trim();
  if (value) {
    if (/^\d+$/.test(value)) ms = Number(value) * 1000;
    // An HTTP date names its day and month (Date.parse alone reads "-5" as the year -5).
    else if (/[A-Za-z]/.test(value)) {
      const at = Date.parse(value);
      if (!Number.isNaN(at)) ms = Math.max(0, at - now);
    }
  }
  return ms <= maxDelayMs ? ms : undefined;
}

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** setTimeout as a promise, cut short by an abort. */
export const sleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', aborted);
    };
    const aborted = () => {
      done();
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      done();
      resolve();
    }, ms);
    signal?.addEventListener('abort', aborted, { once: true });
  });

export interface RetryOptions {
  maxRetries: number;
  maxDelayMs: number;
  sleep: Sleep;
}

/**
 * A fetch that sends a request again after a 429 or 503, waiting as Retry-After says, at most
 * `maxRetries` times; every other answer (and a network error) goes back as it is.
 */
export function retryingFetch(fetch: (request: Request) => Promise<Response>, options: RetryOptions): (request: Request) => Promise<Response> {
  return async (request) => {
    for (let attempt = 0; ; attempt++) {
      // A GET has no body: a clone is the same request again.
      const response = await fetch(attempt < options.maxRetries ? request.clone() : request);
      if (!RETRIED_STATUSES.has(response.status) || attempt >= options.maxRetries) return response;
      const delay = retryDelayMs(response.headers.get('retry-after'), attempt, options.maxDelayMs);
      if (delay === undefined) return response;
      await response.body?.cancel();
      await options.sleep(delay, request.signal);
    }
  };
}
