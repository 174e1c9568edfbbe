import { z } from 'zod';
import { API_KEY_NAME_MAX, API_KEY_RESTRICTIONS_MAX } from '../limits';
import { isIpOrCidr, isReferrerPattern } from '../network';

/** A list given as an array or as text separated by commas, spaces or new lines; trimmed, blanks and repeats dropped. */
const restrictionList = (check: (v: string) => boolean, message: string, label: string) =>
  z.preprocess(
    (v) => {
      if (v === undefined || v === null || v === '') return [];
      const list = typeof v === 'string' ? v.split(/[\s,、]+/) : v;
      if (!Array.isArray(list)) return list;
      return [...new Set(list.map((s) => (typeof s === 'string' ? s.trim() : s)).filter((s) => s !== ''))];
    },
    z
      .array(z.string().max(100, message).refine(check, message), { error: message })
      .max(API_KEY_RESTRICTIONS_MAX, `${label}は${API_KEY_RESTRICTIONS_MAX}件まで指定できます`),
  )
    // Absent means no restriction; the default also keeps the field optional in /openapi.json.
    .default([]);

export const apiKeyNameSchema = z
  .string({ error: 'キー名を入力してください' })
  .trim()
  .min(1, 'キー名を入力してください')
  .max(API_KEY_NAME_MAX, `キー名は${API_KEY_NAME_MAX}文字以内で入力してください`);

export const createApiKeyBodySchema = z.object({
  name: apiKeyNameSchema,
  /** The last day the key works ('YYYY-MM-DD', Japan time) or an ISO instant; absent: no expiry. */
  expires_at: z.preprocess(
    (v) => (v === '' || v === null ? undefined : v),
    z
      .string()
      .refine((v) => /^\d{4}-\d{2}-\d{2}(T.*)?$/.test(v) && !Number.isNaN(new Date(v).getTime()), '有効期限の日付が正しくありません')
      .optional(),
  ),
  allowed_ips: restrictionList(isIpOrCidr, '許可するIPアドレスは 203.0.113.5 や 203.0.113.0/24 の形式で入力してください', '許可するIPアドレス'),
  allowed_referrers: restrictionList(
    isReferrerPattern,
    '許可するリファラーは example.com や *.example.com の形式で入力してください',
    '許可するリファラー',
  ),
});
export type CreateApiKeyBody = z.input<typeof createApiKeyBodySchema>;
export type CreateApiKeyInput = z.output<typeof createApiKeyBodySchema>;

export const API_KEY_STATUSES = ['active', 'rotating', 'expired', 'revoked'] as const;
export type ApiKeyStatus = (typeof API_KEY_STATUSES)[number];
export const API_KEY_STATUS_LABELS: Record<ApiKeyStatus, string> = {
  active: '有効',
  rotating: 'ローテーション中',
  expired: '期限切れ',
  revoked: '無効化済み',
};

export const apiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  /** The first characters of the key, enough to recognise it ('poi_live_AbC123'). */
  prefix: z.string(),
  status: z.enum(API_KEY_STATUSES),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  expires_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  allowed_ips: z.array(z.string()),
  allowed_referrers: z.array(z.string()),
  /** The key that replaced this one in a rotation. */
  replaced_by: z.string().nullable(),
});
export type ApiKey = z.infer<typeof apiKeySchema>;

export const apiKeyListResponseSchema = z.object({
  success: z.literal(true),
  data: z.object({
    api_keys: z.array(apiKeySchema),
    /** Keys that count against the limit (active ones, not those being rotated out). */
    active_count: z.number().int(),
    max_keys: z.number().int(),
  }),
});

/** The answer of create and rotate: the only time the full key is ever shown. */
export const apiKeySecretResponseSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  data: z.object({ api_key: apiKeySchema, key: z.string() }),
});
export type ApiKeySecretResponse = z.infer<typeof apiKeySecretResponseSchema>;

export const apiKeyResponseSchema = z.object({ success: z.literal(true), message: z.string(), data: z.object({ api_key: apiKeySchema }) });

export const apiKeyParamsSchema = z.object({ id: z.uuid({ error: 'APIキーIDが正しくありません' }) });
