import { describe, expect, it } from 'vitest';
import { redactSecrets } from './logs';

describe('redactSecrets', () => {
  it('replaces secret-looking fields at any depth, in objects and JSON strings', () => {
    const out = redactSecrets({
      requestBody: JSON.stringify({ email: 'a@example.com', code: '123456' }),
      responseBody: { user: { token: 'abc' }, list: [{ authorization: 'Bearer x' }] },
      message: 'header was Bearer abc.def',
      hasAuthToken: true,
    });
    const text = JSON.stringify(out);
    expect(text).not.toContain('123456');
    expect(text).not.toContain('"abc"');
    expect(text).not.toContain('abc.def');
    expect(text).toContain('a@example.com');
    expect((out as { hasAuthToken: boolean }).hasAuthToken).toBe(true);
  });
});
