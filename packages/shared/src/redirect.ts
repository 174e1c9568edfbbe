import { DEFAULT_AFTER_LOGIN } from './limits';

// No zod here: the console's sign-in page reads the redirect before it loads any schema.

/** A redirect target that stays on this site: a path starting with '/', never '//' or '/\'. */
export function safeRedirect(value: unknown, fallback = DEFAULT_AFTER_LOGIN): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2048) return fallback;
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return fallback;
  // Control characters and backslashes let browsers reinterpret the path as another origin.
  if (value.includes('\\') || Array.from(value).some((c) => c.charCodeAt(0) < 0x20)) return fallback;
  return value;
}
