import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiRequestError, apiClient, createApiClient, flushFrontendLogs, getErrorMessage, LOG_ENDPOINT, retryAfterSeconds } from './api-client';

type Seen = { url: string; method: string; auth?: string; contentType?: string; data?: unknown; at: number };
let seen: Seen[];
let answer: (url: string, init: RequestInit) => { status: number; data: unknown; headers?: Record<string, string> } | 'hang';

beforeEach(() => {
  seen = [];
  answer = () => ({ status: 200, data: { success: true } });
  vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
    const headers = (init.headers ?? {}) as Record<string, string>;
    seen.push({ url, method: String(init.method), auth: headers.Authorization, contentType: headers['Content-Type'], data: init.body, at: Date.now() });
    const a = answer(url, init);
    if (a === 'hang') {
      return new Promise<Response>((_, reject) => init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))));
    }
    return new Response(JSON.stringify(a.data), { status: a.status, headers: { 'content-type': 'application/json', ...a.headers } });
  });
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('apiClient', () => {
  it('sends the stored token as a Bearer header', async () => {
    window.localStorage.setItem('auth_token', 'tok-123');
    await apiClient.get('/console/v1/user');
    expect(seen[0]!.auth).toBe('Bearer tok-123');
    expect(apiClient.timeout).toBe(30_000);
  });

  it('clears token and user on any 401 and tells the app', async () => {
    window.localStorage.setItem('auth_token', 'tok');
    window.localStorage.setItem('user', '{}');
    const handler = vi.fn();
    const client = createApiClient({ onUnauthorized: handler });
    answer = (url) => (url === LOG_ENDPOINT ? { status: 200, data: {} } : { status: 401, data: { success: false, error: { code: 'UNAUTHORIZED', message: 'ログインが必要です' } } });
    await expect(client.get('/console/v1/user')).rejects.toBeTruthy();
    expect(window.localStorage.getItem('auth_token')).toBeNull();
    expect(window.localStorage.getItem('user')).toBeNull();
    expect(handler).toHaveBeenCalledOnce();
    await flushFrontendLogs();
  });

  it('logs each failed call, one at a time, with secrets redacted, never logging a failed log', async () => {
    answer = (url) => ({ status: url === LOG_ENDPOINT ? 500 : 400, data: { success: false, error: { code: 'X', message: 'm' }, token: 'secret' } });
    await Promise.allSettled([
      apiClient.post('/console/v1/auth/verify-otp', { email: 'a@example.com', code: '123456' }),
      apiClient.get('/console/v1/datasets/public'),
    ]);
    await flushFrontendLogs();
    const logs = seen.filter((s) => s.url === LOG_ENDPOINT);
    expect(logs).toHaveLength(2);
    const first = JSON.parse(String(logs[0]!.data));
    expect(first).toMatchObject({ type: 'api_error', endpoint: '/console/v1/auth/verify-otp', method: 'POST', status: 400 });
    expect(JSON.stringify(first)).not.toContain('123456');
    expect(JSON.stringify(first)).not.toContain('secret');
    expect(first.browserInfo.userAgent).toBeTruthy();
  });

  it('reads the server message, else the fallback', async () => {
    answer = () => ({ status: 400, data: { success: false, error: { code: 'VALIDATION_ERROR', message: '有効なメールアドレスを入力してください' } } });
    const error = await apiClient.get('/x').catch((e: unknown) => e);
    expect(getErrorMessage(error, 'fallback')).toBe('有効なメールアドレスを入力してください');
    expect(getErrorMessage(new Error('boom'), 'OTPリクエストに失敗しました')).toBe('OTPリクエストに失敗しました');
    await flushFrontendLogs();
  });

  it('sends query parameters (skipping undefined, repeating arrays), JSON bodies as JSON, and forms as they are', async () => {
    await apiClient.get('/console/v1/x', { params: { a: 'あ b', n: 2, none: undefined, list: ['p', 'q'] } });
    expect(seen[0]!.url).toBe('/console/v1/x?a=%E3%81%82+b&n=2&list=p&list=q');
    await apiClient.post('/console/v1/y', { k: 1 });
    expect(seen[1]).toMatchObject({ method: 'POST', contentType: 'application/json', data: '{"k":1}' });
    const form = new FormData();
    form.append('file', new Blob(['a']), 'a.csv');
    await apiClient.post('/console/v1/z', form, { headers: { 'Content-Type': 'multipart/form-data' } });
    expect(seen[2]!.contentType).toBeUndefined();
    expect(seen[2]!.data).toBe(form);
  });

  it('gives a failed answer its status, body and headers, and a 429 its Retry-After', async () => {
    answer = (url) => (url === LOG_ENDPOINT ? { status: 200, data: {} } : { status: 429, data: { success: false, error: { code: 'RATE_LIMITED', message: '多すぎます' } }, headers: { 'Retry-After': '7' } });
    const error = await apiClient.get('/console/v1/user').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiRequestError);
    expect((error as ApiRequestError).response?.status).toBe(429);
    expect(retryAfterSeconds(error)).toBe(7);
    expect(getErrorMessage(error, 'x')).toBe('多すぎます');
    await flushFrontendLogs();
  });

  it('fails a call that takes longer than its timeout as a timeout, and logs it as one', async () => {
    answer = (url) => (url === LOG_ENDPOINT ? { status: 200, data: {} } : 'hang');
    const error = await apiClient.get('/console/v1/slow', { timeout: 20 }).catch((e: unknown) => e);
    expect((error as ApiRequestError).code).toBe('ECONNABORTED');
    await flushFrontendLogs();
    const log = seen.find((s) => s.url === LOG_ENDPOINT);
    expect(JSON.parse(String(log!.data))).toMatchObject({ type: 'timeout', endpoint: '/console/v1/slow', method: 'GET', status: null });
  });

  it('a cancelled call (the query was dropped) rejects as cancelled and is not logged', async () => {
    answer = () => 'hang';
    const controller = new AbortController();
    const pending = apiClient.get('/console/v1/dropped', { signal: controller.signal }).catch((e: unknown) => e);
    controller.abort();
    expect(((await pending) as ApiRequestError).code).toBe('ERR_CANCELED');
    await flushFrontendLogs();
    expect(seen.filter((s) => s.url === LOG_ENDPOINT)).toHaveLength(0);
  });
});
