import { z } from 'zod';
import { FRONTEND_LOG_FIELD_MAX } from '../limits';

const text = (max = FRONTEND_LOG_FIELD_MAX) => z.string().max(max).optional().nullable();
const bodyValue = z.unknown().optional().nullable();

/** The console specification's frontend log payload. */
export const frontendLogBodySchema = z.object({
  type: z.string().trim().min(1).max(50),
  message: text(),
  endpoint: text(500),
  method: text(10),
  status: z.number().int().min(0).max(999).optional().nullable(),
  statusText: text(200),
  requestBody: bodyValue,
  responseBody: bodyValue,
  timestamp: text(50),
  url: text(2000),
  userId: z.string().max(100).optional().nullable(),
  hasAuthToken: z.boolean().optional(),
  browserInfo: z
    .object({
      userAgent: text(500),
      language: text(50),
      platform: text(100),
      screenWidth: z.number().optional(),
      screenHeight: z.number().optional(),
      windowWidth: z.number().optional(),
      windowHeight: z.number().optional(),
    })
    .optional()
    .nullable(),
});
export type FrontendLogBody = z.infer<typeof frontendLogBodySchema>;

const SECRET_KEY = /(code|token|authorization|password|secret|api[_-]?key|otp)/i;
const REDACTED = '[REDACTED]';

/**
 * Replaces values of secret-looking keys (code, token, authorization, …) at any depth.
 * Used by the console before sending and by the server before storing, so a log never
 * carries a sign-in code or a bearer token even from an old client.
 */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (depth > 8) return REDACTED;
  if (typeof value === 'string') {
    const parsed = tryParseJson(value);
    if (parsed !== undefined && typeof parsed === 'object' && parsed !== null) {
      return JSON.stringify(redactSecrets(parsed, depth + 1));
    }
    return value.replace(/Bearer\s+[A-Za-z0-9._~+/=-]+/g, `Bearer ${REDACTED}`);
  }
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = SECRET_KEY.test(k) && k !== 'hasAuthToken' ? REDACTED : redactSecrets(v, depth + 1);
    }
    return out;
  }
  return value;
}

function tryParseJson(s: string): unknown {
  const t = s.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return undefined;
  try {
    return JSON.parse(t);
  } catch {
    return undefined;
  }
}
