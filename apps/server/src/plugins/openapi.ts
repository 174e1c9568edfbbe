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
 * The security schemes of the document. The console signs in with a session token sent as
 * `Authorization: Bearer …` (plugins/auth.ts); the public search API takes an API key, in
 * X-API-Key or as a bearer token (public-api.service.ts `apiKeyOf`). The two bearer forms carry
 * different credentials, so they are two schemes: a client (or a generated one) keeps a token per
 * scheme.
 */
export const SECURITY_SCHEMES = {
  bearerAuth: { type: 'http', scheme: 'bearer', description: 'コンソールのセッショントークン(ログイン時に発行。Authorization: Bearer で送る)' },
  apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: '公開検索APIのAPIキー(poi_live_ で始まる文字列)' },
  apiKeyBearer: { type: 'http', scheme: 'bearer', description: '公開検索APIのAPIキーを Authorization: Bearer で送る形式(X-API-Key と同じキー)' },
} as const;

type SecurityRequirement = Record<string, string[]>;
/** The security of a console route behind `requireSignIn`. */
export const SESSION_SECURITY: SecurityRequirement[] = [{ bearerAuth: [] }];
/** The public search API: either form of the API key. */
export const API_KEY_SECURITY: SecurityRequirement[] = [{ apiKeyHeader: [] }, { apiKeyBearer: [] }];

const API_PREFIXES = ['/console/v1', '/api/v1'];
/** A POST whose last path segment starts with one of these words is named after it (…/{id}/suspend → suspend…). */
const ACTION_WORDS = new Set([
  'activate', 'assign', 'change', 'checkout', 'close', 'complete', 'confirm', 'create', 'delete', 'logout', 'move',
  'preview', 'register', 'reject', 'remove', 'request', 'revoke', 'rotate', 'search', 'suspend', 'update', 'verify', 'export',
]);

/**
 * Names the derivation would get wrong or make unreadable, keyed by method and the served path (so
 * a name does not change when a route moves between modules). A route may also set
 * `schema.operationId` itself, which wins over both.
 */
const OPERATION_IDS: Record<string, string> = {
  'GET /healthz': 'getHealth',
  'GET /api/v1/poi/search': 'searchPois',
  'POST /console/v1/auth/request-otp': 'requestOtp',
  'POST /console/v1/auth/verify-otp': 'verifyOtp',
  'POST /console/v1/auth/magic/{token}': 'signInWithMagicLink',
  'POST /console/v1/auth/logout': 'logout',
  'GET /console/v1/user': 'getCurrentUser',
  'PATCH /console/v1/user': 'updateCurrentUser',
  'POST /console/v1/admin/users/{id}/change-type': 'adminChangeUserType',
  'POST /console/v1/logs/frontend': 'logFrontendError',
  'GET /console/v1/datasets/public': 'listPublicDatasets',
  'POST /console/v1/datasets/public/create': 'createDataset',
  'POST /console/v1/admin/datasets/assign': 'adminCreateAssignedDataset',
  'POST /console/v1/datasets/{id}/price': 'setDatasetPrice',
  'GET /console/v1/poi/search': 'searchDatasetPois',
  'POST /console/v1/poi/bulk-import': 'bulkImportPois',
  'GET /console/v1/datasets/revenue/monthly': 'getMonthlyProviderRevenue',
  'GET /console/v1/datasets/revenue/dataset/{id}': 'getDatasetRevenue',
  'GET /console/v1/admin/pricing/current': 'adminGetCurrentPricing',
  'GET /console/v1/admin/pricing/history': 'adminListPricingVersions',
  'POST /console/v1/billing/account': 'saveBillingAccount',
  'GET /console/v1/billing/current': 'getCurrentCharges',
  'POST /console/v1/billing/plan/cancel': 'scheduleBillingPlanCancel',
  'POST /console/v1/billing/plan/cancel/undo': 'undoBillingPlanCancel',
  'POST /console/v1/billing/budget': 'setBillingBudget',
  'GET /console/v1/billing/invoices/{id}/pdf': 'downloadInvoicePdf',
  'GET /console/v1/billing/payments/{id}/receipt.pdf': 'downloadReceiptPdf',
  'GET /console/v1/admin/transfers/pending': 'adminListPendingTransfers',
  'GET /console/v1/admin/transfers/pending.csv': 'adminExportPendingTransfersCsv',
  'POST /console/v1/admin/transfers/statement': 'adminMatchTransferStatement',
  'GET /console/v1/admin/corporate': 'adminListCorporates',
  'GET /console/v1/admin/corporate.csv': 'adminExportCorporatesCsv',
  'POST /console/v1/admin/corporate/{id}/members': 'adminAddCorporateMember',
  'GET /console/v1/admin/data-providers/revenue': 'adminListDataProviderRevenue',
  'GET /console/v1/admin/data-providers/revenue.csv': 'adminExportDataProviderRevenueCsv',
  'GET /console/v1/admin/datasets/revenue/platform': 'adminGetPlatformDatasetRevenue',
  'GET /console/v1/upgrade': 'getPlanStatus',
  'POST /console/v1/upgrade/corporate': 'applyForCorporateAccount',
  'GET /console/v1/commerce': 'getCommerceNotice',
};

const camel = (words: string[]): string => words.map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1))).join('');
const wordsOf = (segment: string): string[] => segment.split(/[-_.]/).filter(Boolean).map((w) => w.toLowerCase());
const isParam = (segment: string): boolean => segment.startsWith(':') || segment.startsWith('{');
/** `users` followed by `{id}` names one user. */
const singular = (word: string): string => (word.endsWith('ies') ? `${word.slice(0, -3)}y` : word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word);

/**
 * A readable camelCase operationId from the method and the served path alone:
 * `GET /console/v1/admin/users` → `adminListUsers`, `POST …/api-keys/{id}/revoke` → `revokeApiKey`,
 * `GET …/datasets/{id}` → `getDataset`, `GET …/admin/users.csv` → `adminExportUsersCsv`.
 */
export function deriveOperationId(method: string, url: string): string {
  const key = `${method} ${url.replace(/:(\w+)/g, '{$1}')}`;
  if (OPERATION_IDS[key]) return OPERATION_IDS[key];
  let path = url;
  for (const prefix of API_PREFIXES) if (path.startsWith(`${prefix}/`)) path = path.slice(prefix.length);
  const segments = path.split('/').filter(Boolean);
  const admin = segments[0] === 'admin';
  if (admin) segments.shift();
  const endsWithParam = segments.length > 0 && isParam(segments.at(-1)!);
  let verb: string[] | undefined;
  const last = segments.at(-1);
  if (method === 'GET' && last?.endsWith('.csv')) {
    // GET …/users.csv: the list as a file.
    verb = ['export'];
  } else if (last && !isParam(last) && ACTION_WORDS.has(wordsOf(last)[0]!) && segments.length > 1) {
    verb = wordsOf(last);
    segments.pop();
  } else if (endsWithParam && segments.length > 2 && ACTION_WORDS.has(wordsOf(segments.at(-2)!)[0]!)) {
    // POST /poi/remove/{poiId}: the verb stands before the record it acts on.
    verb = wordsOf(segments.at(-2)!);
    segments.splice(-2, 1);
  }
  const object: string[] = [];
  segments.forEach((segment, i) => {
    if (isParam(segment)) return;
    const words = wordsOf(segment);
    // A segment followed by a parameter names one record of it.
    if (i + 1 < segments.length && isParam(segments[i + 1]!)) words.push(singular(words.pop()!));
    object.push(...words);
  });
  if (!verb) {
    const plural = !endsWithParam && object.at(-1)?.endsWith('s');
    verb = [{ GET: plural ? 'list' : 'get', POST: 'create', PUT: 'replace', PATCH: 'update', DELETE: 'delete' }[method] ?? method.toLowerCase()];
    if (method === 'POST' && !endsWithParam && object.length > 0) object.push(singular(object.pop()!));
  }
  return camel([...(admin ? ['admin'] : []), ...verb, ...object]);
}

/** Keys under which a schema holds values, not schemas: their contents are left as they are. */
const VALUE_KEYS = new Set(['example', 'examples', 'default', 'enum', 'const']);

/**
 * zod 4 writes `z.unknown().nullable()` as `{ nullable: true }`; OpenAPI 3.0 gives `nullable` a
 * meaning only beside a `type`. A schema without a type already admits null, so the flag is
 * dropped there (the document says the same; validation uses the zod schema, not this). Where a
 * typeless schema is a union, each branch takes the flag instead.
 */
export function fixTypelessNullable(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) fixTypelessNullable(item);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const schema = node as Record<string, unknown>;
  if (schema.nullable === true && schema.type === undefined) {
    const branches = (schema.anyOf ?? schema.oneOf) as Array<Record<string, unknown>> | undefined;
    if (Array.isArray(branches) && schema.anyOf) for (const branch of branches) if (branch.type !== undefined) branch.nullable = true;
    if (!schema.oneOf && !schema.allOf && !schema.$ref) delete schema.nullable;
  }
  for (const [key, value] of Object.entries(schema)) if (!VALUE_KEYS.has(key)) fixTypelessNullable(value);
}

/**
 * The swagger transform: every operation gets an operationId (route `schema.operationId`, else
 * derived from method and path) and its security (a signed-in route's session, the route's own,
 * or `[]`: public). Console operations list every error status they can answer with the
 * envelope schema (derived ones plus those the route declares) and a multipart body where the
 * route reads one itself; then fastify-type-provider-zod turns the zod schemas into JSON Schema,
 * whose typeless `nullable` flags are then fixed (see `fixTypelessNullable`).
 */
export function documentRoute(input: Parameters<typeof jsonSchemaTransform>[0]): ReturnType<typeof jsonSchemaTransform> {
  const { url, route } = input;
  const schema = (input.schema ?? {}) as Record<string, unknown>;
  if (schema.hide) return jsonSchemaTransform(input);
  const methods = [route.method].flat().filter((m) => m !== 'HEAD');
  const described: Record<string, unknown> = {
    ...schema,
    operationId: schema.operationId ?? (methods.length === 1 ? deriveOperationId(methods[0]!, url) : undefined),
    security: schema.security ?? (route.config?.access ? SESSION_SECURITY : []),
  };
  if (url.startsWith('/console/v1/')) {
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
    described.response = response;
    const body = schema.body ?? route.config?.openapiBody;
    if (body) described.body = body;
  }
  const result = jsonSchemaTransform({ ...input, schema: described as typeof input.schema });
  fixTypelessNullable(result.schema);
  return result;
}
