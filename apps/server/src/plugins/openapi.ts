import type { RouteOptions } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { apiErrorSchema } from '@poi/shared/schemas/common';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The request body as the OpenAPI document shows it, for a route that reads its body itself
     * (multipart) and so cannot declare `schema.body` without Fastify validating it.
     */
    openapiBody?: z.ZodType;
  }
}

/** What each error status of the console API means; the answer is always the error envelope. */
const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'VALIDATION_ERROR / BAD_REQUEST: 入力内容の誤り(項目ごとの理由は errors)、形式が正しくないJSONやURL、保存できない文字(NUL、対になっていないサロゲート)',
  401: 'UNAUTHORIZED: ログインしていない、またはセッションの有効期限切れ(入力の検証より先に判定)',
  403: 'FORBIDDEN / ACCOUNT_SUSPENDED: この操作を行う権限がない、またはアカウント停止中',
  404: 'NOT_FOUND: 指定したリソースが見つからない',
  409: 'CONFLICT: 現在の状態では実行できない(上限に達した、すでに無効化済みなど)',
  413: 'PAYLOAD_TOO_LARGE: リクエストのサイズが大きすぎる',
  415: 'UNSUPPORTED_MEDIA_TYPE: 対応していない Content-Type',
  429: 'RATE_LIMITED: リクエストが多すぎる(Retry-After 秒後に再試行)',
  500: 'INTERNAL_ERROR: サーバー内部のエラー(request_id を添えてお問い合わせください)',
  503: 'SERVICE_UNAVAILABLE: 一時的に処理できない(メール送信の失敗など)',
};

const errorResponse = (status: number) => apiErrorSchema.describe(ERROR_DESCRIPTIONS[status] ?? 'エラー');

/**
 * Error answers a route declares beyond those the document derives from the route itself
 * (see `documentRoute`): e.g. `response: { 200: …, ...errorResponses(403, 409) }`.
 */
export function errorResponses(...statuses: number[]): Record<number, z.ZodType> {
  return Object.fromEntries(statuses.map((status) => [status, errorResponse(status)]));
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The error statuses any console route answers by its shape: input, body, session, limits. */
function derivedErrorStatuses(route: RouteOptions, schema: Record<string, unknown>): number[] {
  const methods = [route.method].flat();
  const takesBody = methods.some((m) => BODY_METHODS.has(m)) && (schema.body !== undefined || route.config?.openapiBody !== undefined);
  const statuses = [500];
  if (takesBody || schema.querystring || schema.params) statuses.push(400);
  if (route.config?.access) statuses.push(401);
  if (route.config?.access === 'admin') statuses.push(403);
  // A signed-in route's path names a record (a dataset, a POI, a key, a user) that may not exist.
  if (schema.params && route.config?.access) statuses.push(404);
  if (takesBody) statuses.push(413, 415);
  if (route.config?.rateLimit) statuses.push(429);
  return statuses;
}

/**
 * The swagger transform: console operations list every error status they can answer with the
 * envelope schema (derived ones plus those the route declares) and a multipart body where the
 * route reads one itself; then fastify-type-provider-zod turns the zod schemas into JSON Schema.
 */
export function documentRoute(input: Parameters<typeof jsonSchemaTransform>[0]): ReturnType<typeof jsonSchemaTransform> {
  const { url, route } = input;
  const schema = (input.schema ?? {}) as Record<string, unknown>;
  if (!url.startsWith('/console/v1/') || schema.hide) return jsonSchemaTransform(input);
  const response: Record<string, unknown> = { ...(schema.response as Record<string, unknown> | undefined) };
  const produces = schema.produces as string[] | undefined;
  if (produces) {
    // A route answering files (export) declares their types; its errors are still JSON.
    response[200] ??= { description: '成功', content: Object.fromEntries(produces.map((type) => [type, { schema: z.string() }])) };
    for (const [status, entry] of Object.entries(response)) {
      if (entry instanceof z.ZodType) response[status] = { description: entry.description, content: { 'application/json': { schema: entry } } };
    }
  }
  for (const status of derivedErrorStatuses(route as RouteOptions, schema)) {
    response[status] ??= produces ? { description: ERROR_DESCRIPTIONS[status], content: { 'application/json': { schema: apiErrorSchema } } } : errorResponse(status);
  }
  const body = schema.body ?? route.config?.openapiBody;
  return jsonSchemaTransform({ ...input, schema: { ...schema, response, ...(body ? { body } : {}) } as typeof input.schema });
}
