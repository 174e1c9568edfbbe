import { describe, expect, it } from 'vitest';
import { readUrlParams, writeUrlParams } from './use-url-params';

describe('admin list views in the URL', () => {
  const defaults = { q: '', status: '', sort: 'created_at', page: '1' };
  it('reads known values, falls back on unknown ones, and leaves defaults out of the URL', () => {
    const view = readUrlParams(new URLSearchParams('q=%E4%BD%90%E8%97%A4&status=frozen&sort=email&page=0'), defaults, { status: ['', 'active'], sort: ['created_at', 'email'] });
    expect(view).toEqual({ q: '佐藤', status: '', sort: 'email', page: '1' });
    expect(writeUrlParams({ ...view, page: '3' }, defaults).toString()).toBe('q=%E4%BD%90%E8%97%A4&sort=email&page=3');
    expect(writeUrlParams(defaults, defaults).toString()).toBe('');
  });
});
