import type { AxiosAdapter, InternalAxiosRequestConfig } from 'axios';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { apiClient, createApiClient, flushFrontendLogs, getErrorMessage, LOG_ENDPOINT } from './api-client';

type Seen = { url?: string; auth?: string; data?: unknown; timeout?: number; at: number };
let seen: Seen[];
let answer: (config: InternalAxiosRequestConfig) => { status: number; data: unknown };
const original = apiClient.defaults.adapter;
let adapter: AxiosAdapter;

beforeEach(() => {
  seen = [];
  answer = () => ({ status: 200, data: { success: true } });
  adapter = async (config) => {
    seen.push({ url: config.url, auth: config.headers.get('Authorization') as string | undefined, data: config.data, timeout: config.timeout, at: Date.now() });
    const { status, data } = answer(config);
    const response = { status, data, statusText: String(status), headers: {}, config, request: {} };
    if (config.validateStatus && !config.validateStatus(status)) {
      const { AxiosError } = await import('axios');
      throw new AxiosError(`Request failed with status code ${status}`, 'ERR_BAD_RESPONSE', config, {}, response);
    }
    return response;
  };
  apiClient.defaults.adapter = adapter;
});
afterEach(() => {
  apiClient.defaults.adapter = original;
});

describe('apiClient', () => {
  it('sends the stored token as a Bearer header', async () => {
    window.localStorage.setItem('auth_token', 'tok-123');
    await apiClient.get('/console/v1/user');
    expect(seen[0]!.auth).toBe('Bearer tok-123');
    expect(apiClient.defaults.timeout).toBe(30_000);
  });

  it('clears token and user on any 401 and tells the app', async () => {
    window.localStorage.setItem('auth_token', 'tok');
    window.localStorage.setItem('user', '{}');
    const handler = vi.fn();
    const client = createApiClient({ onUnauthorized: handler });
    client.defaults.adapter = adapter;
    answer = (c) => (c.url === LOG_ENDPOINT ? { status: 200, data: {} } : { status: 401, data: { success: false, error: { code: 'UNAUTHORIZED', message: 'ログインが必要です' } } });
    await expect(client.get('/console/v1/user')).rejects.toBeTruthy();
    expect(window.localStorage.getItem('auth_token')).toBeNull();
    expect(window.localStorage.getItem('user')).toBeNull();
    expect(handler).toHaveBeenCalledOnce();
    await flushFrontendLogs();
  });

  it('logs each failed call, one at a time, with secrets redacted, never logging a failed log', async () => {
    answer = (c) => ({ status: c.url === LOG_ENDPOINT ? 500 : 400, data: { success: false, error: { code: 'X', message: 'm' }, token: 'secret' } });
    await Promise.allSettled([
      apiClient.post('/console/v1/auth/verify-otp', { email: 'a@example.com', code: '123456' }),
      apiClient.get('/console/v1/datasets/public'),
    ]);
    await flushFrontendLogs();
    const logs = seen.filter((s) => s.url === LOG_ENDPOINT);
    expect(logs).toHaveLength(2);
    expect(logs.every((l) => l.timeout === 5_000)).toBe(true);
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
});
