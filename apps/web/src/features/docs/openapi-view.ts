/**
 * Reads the parts of the server's OpenAPI document that /docs/api shows, so that the page is
 * always what the server validates and answers.
 */
export interface JsonSchema {
  type?: string | string[];
  format?: string;
  description?: string;
  nullable?: boolean;
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
}

export interface OpenApiParameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

export interface OpenApiOperation {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: OpenApiParameter[];
  security?: Array<Record<string, string[]>>;
  responses?: Record<string, OpenApiResponse>;
}

export interface OpenApiResponse {
  description?: string;
  headers?: Record<string, { description?: string; schema?: JsonSchema }>;
  content?: Record<string, { schema?: JsonSchema; example?: unknown; examples?: Record<string, { summary?: string; value: unknown }> }>;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  servers?: Array<{ url: string }>;
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { securitySchemes?: Record<string, { type: string; scheme?: string; in?: string; name?: string; description?: string }> };
}

export interface Endpoint {
  method: string;
  path: string;
  operation: OpenApiOperation;
}

/** The public API's operations (everything under /api/), in document order. */
export function publicEndpoints(doc: OpenApiDocument): Endpoint[] {
  return Object.entries(doc.paths)
    .filter(([path]) => path.startsWith('/api/'))
    .flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })));
}

export function typeLabel(schema: JsonSchema | undefined): string {
  if (!schema) return '';
  if (schema.anyOf?.length) return schema.anyOf.map(typeLabel).join(' | ');
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : (schema.type ?? 'object');
  if (type === 'array') return `${typeLabel(schema.items)}[]`;
  if (schema.format === 'uuid') return 'string (UUID)';
  return schema.nullable ? `${type} | null` : type;
}

/** The languages of /docs/api: Japanese (/docs/api) and English (/docs/api?lang=en). */
export type DocsLanguage = 'ja' | 'en';

/** Bounds and defaults: '1〜100', '最大100文字', '1〜10件', '既定値 20' (English: '1–100', 'max. 100 characters', '1–10 items', 'default 20'). */
export function boundsOf(schema: JsonSchema | undefined, language: DocsLanguage = 'ja'): string {
  if (!schema) return '';
  const en = language === 'en';
  const parts: string[] = [];
  if (schema.minimum !== undefined && schema.maximum !== undefined) parts.push(`${schema.minimum}${en ? '–' : '〜'}${schema.maximum}`);
  else if (schema.minimum !== undefined) parts.push(en ? `≥ ${schema.minimum}` : `${schema.minimum}以上`);
  else if (schema.maximum !== undefined) parts.push(en ? `≤ ${schema.maximum}` : `${schema.maximum}以下`);
  if (schema.maxLength !== undefined) parts.push(en ? `max. ${schema.maxLength} characters` : `最大${schema.maxLength}文字`);
  if (schema.minItems !== undefined && schema.maxItems !== undefined) parts.push(en ? `${schema.minItems}–${schema.maxItems} items` : `${schema.minItems}〜${schema.maxItems}件`);
  else if (schema.maxItems !== undefined) parts.push(en ? `max. ${schema.maxItems} items` : `最大${schema.maxItems}件`);
  if (schema.enum) parts.push(schema.enum.map(String).join(' / '));
  if (schema.default !== undefined) parts.push(en ? `default ${String(schema.default)}` : `既定値 ${String(schema.default)}`);
  return parts.join(en ? ', ' : '、');
}

export interface FieldRow {
  path: string;
  type: string;
  description: string;
}

/** A response schema flattened to one row per field: 'data.pois[].name'. */
export function fieldsOf(schema: JsonSchema | undefined, prefix = ''): FieldRow[] {
  if (!schema) return [];
  if (schema.type === 'array' && schema.items) return fieldsOf(schema.items, `${prefix}[]`);
  if (!schema.properties) return [];
  return Object.entries(schema.properties).flatMap(([name, child]) => {
    const path = prefix ? `${prefix}.${name}` : name;
    return [{ path, type: typeLabel(child), description: child.description ?? '' }, ...fieldsOf(child, path)];
  });
}

export interface ErrorRow {
  status: string;
  code: string;
  description: string;
}

/** The error answers, from their descriptions 'CODE: when'. */
export function errorsOf(operation: OpenApiOperation): ErrorRow[] {
  return Object.entries(operation.responses ?? {})
    .filter(([status]) => Number(status) >= 400)
    .map(([status, response]) => {
      const text = response.description ?? '';
      const at = text.indexOf(': ');
      return at > 0 ? { status, code: text.slice(0, at), description: text.slice(at + 2) } : { status, code: '', description: text };
    });
}

export function successSchemaOf(operation: OpenApiOperation): JsonSchema | undefined {
  return operation.responses?.['200']?.content?.['application/json']?.schema;
}

export interface SampleAnswer {
  status: string;
  name: string;
  summary: string;
  /** The body, pretty-printed. */
  json: string;
}

/** The sample answers the document declares for each status (OpenAPI media examples), in status order. */
export function samplesOf(operation: OpenApiOperation): SampleAnswer[] {
  return Object.entries(operation.responses ?? {}).flatMap(([status, response]) => {
    const media = response.content?.['application/json'];
    if (!media) return [];
    const named = Object.entries(media.examples ?? {}).map(([name, e]) => ({ status, name, summary: e.summary ?? name, json: JSON.stringify(e.value, null, 2) }));
    if (media.example !== undefined) named.push({ status, name: 'example', summary: response.description ?? '', json: JSON.stringify(media.example, null, 2) });
    return named;
  });
}

export interface HeaderRow {
  name: string;
  description: string;
  /** The statuses whose answers carry the header. */
  statuses: string[];
}

/** The response headers the document declares, with the statuses that send each. */
export function headersOf(operation: OpenApiOperation, language: DocsLanguage = 'ja'): HeaderRow[] {
  const rows = new Map<string, HeaderRow>();
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      const row = rows.get(name) ?? { name, description: header.description ?? '', statuses: [] };
      row.statuses.push(status);
      rows.set(name, row);
    }
  }
  const all = Object.keys(operation.responses ?? {});
  // A header every answer carries is listed once as such, not as a column of every status.
  return [...rows.values()].map((row) => (row.statuses.length === all.length && all.length > 1 ? { ...row, statuses: [language === 'en' ? 'all' : 'すべて'] } : row));
}

/** A parameter value of an example: written out, or read from an environment variable. */
export type ExampleValue = string | { env: string };

export interface ExampleInput {
  server: string;
  path: string;
  params: Array<[string, ExampleValue]>;
  /** English examples also ask for English error messages (Accept-Language: en) and stop with English hints. */
  language?: DocsLanguage;
}

const shellValue = (v: ExampleValue) => (typeof v === 'string' ? v : `$${v.env}`);

/**
 * What each environment variable of the examples holds and where to get it: an example run
 * without one stops first and says this, instead of sending a request the API answers 400
 * (dataset_id is required: the public API has no search across every dataset).
 */
export const EXAMPLE_ENV: Record<DocsLanguage, Record<string, string>> = {
  ja: {
    POI_API_KEY: 'APIキー。コンソールの「APIキー管理」(/api-keys)で発行できます',
    POI_DATASET_ID: '検索するデータセットのID(必須)。マーケットプレイス(/marketplace)のカードをクリックするとコピーできます',
  },
  en: {
    POI_API_KEY: 'your API key, issued in the console under API keys (/api-keys)',
    POI_DATASET_ID: 'the ID of the dataset to search (required); click a card in the marketplace (/marketplace) to copy it',
  },
};

/** The message an example stops with when `name` is not set. */
export const missingEnvMessage = (name: string, language: DocsLanguage = 'ja') =>
  language === 'en' ? `Set the environment variable ${name}: ${EXAMPLE_ENV.en[name] ?? ''}` : `環境変数 ${name} を設定してください: ${EXAMPLE_ENV.ja[name] ?? ''}`;

/** The environment variables an example reads: the key first, then its parameters'. */
const envOf = (params: ExampleInput['params']) => ['POI_API_KEY', ...params.flatMap(([, v]) => (typeof v === 'string' ? [] : [v.env]))];

export function curlExample({ server, path, params, language = 'ja' }: ExampleInput): string {
  // ${NAME:?message}: bash and zsh stop with the message when NAME is unset or empty, before
  // curl runs (one && list, so an interactive shell skips curl too).
  const checks = envOf(params).map((name) => `"\${${name}:?${missingEnvMessage(name, language)}}"`);
  return [
    `: ${checks.join(' \\\n  ')} &&`,
    [`curl -G "${server}${path}"`, '  -H "X-API-Key: $POI_API_KEY"', ...(language === 'en' ? ['  -H "Accept-Language: en"'] : []), ...params.map(([k, v]) => `  --data-urlencode "${k}=${shellValue(v)}"`)].join(' \\\n'),
  ].join('\n');
}

const javascriptChecks = (params: ExampleInput['params'], language: DocsLanguage = 'ja') =>
  envOf(params).map((name) => `if (!process.env.${name}) throw new Error('${missingEnvMessage(name, language)}');`);

/** The request headers of the JavaScript examples. */
const javascriptHeaders = (language: DocsLanguage) =>
  language === 'en' ? `{ 'X-API-Key': process.env.POI_API_KEY, 'Accept-Language': 'en' }` : `{ 'X-API-Key': process.env.POI_API_KEY }`;

export function javascriptExample({ server, path, params, language = 'ja' }: ExampleInput): string {
  return [
    ...javascriptChecks(params, language),
    `const params = new URLSearchParams({`,
    ...params.map(([k, v]) => `  ${k}: ${typeof v === 'string' ? `'${v}'` : `process.env.${v.env}`},`),
    `});`,
    `const res = await fetch(\`${server}${path}?\${params}\`, {`,
    `  headers: ${javascriptHeaders(language)},`,
    `});`,
    `const body = await res.json();`,
    `if (!res.ok) throw new Error(\`\${res.status} \${body.error.code}: \${body.error.message}\`);`,
    `console.log(body.data.total, body.data.pois.map((poi) => poi.name));`,
  ].join('\n');
}

export function pythonExample({ server, path, params, language = 'ja' }: ExampleInput): string {
  return [
    'import os',
    'import requests',
    '',
    ...envOf(params).flatMap((name) => [`if not os.environ.get("${name}"):`, `    raise SystemExit("${missingEnvMessage(name, language)}")`]),
    'res = requests.get(',
    `    "${server}${path}",`,
    '    params={',
    ...params.map(([k, v]) => `        "${k}": ${typeof v === 'string' ? `"${v}"` : `os.environ["${v.env}"]`},`),
    '    },',
    language === 'en' ? '    headers={"X-API-Key": os.environ["POI_API_KEY"], "Accept-Language": "en"},' : '    headers={"X-API-Key": os.environ["POI_API_KEY"]},',
    '    timeout=30,',
    ')',
    'body = res.json()',
    'if not res.ok:',
    '    raise RuntimeError(f"{res.status_code} {body[\'error\'][\'code\']}: {body[\'error\'][\'message\']}")',
    'for poi in body["data"]["pois"]:',
    '    print(poi["name"], poi.get("distance_m"))',
  ].join('\n');
}

/** Walking every page with next_cursor (JavaScript): what the cursor is for. */
export function cursorWalkExample({ server, path, params, language = 'ja' }: ExampleInput): string {
  return [
    ...javascriptChecks(params, language),
    `const base = new URLSearchParams({`,
    ...params.map(([k, v]) => `  ${k}: ${typeof v === 'string' ? `'${v}'` : `process.env.${v.env}`},`),
    `  limit: '100',`,
    `});`,
    `const all = [];`,
    `let cursor = null;`,
    `do {`,
    `  const params = new URLSearchParams(base);`,
    `  if (cursor) params.set('cursor', cursor);`,
    `  const res = await fetch(\`${server}${path}?\${params}\`, {`,
    `    headers: ${javascriptHeaders(language)},`,
    `  });`,
    `  const body = await res.json();`,
    `  if (!res.ok) throw new Error(\`\${res.status} \${body.error.code}: \${body.error.message}\`);`,
    `  all.push(...body.data.pois);`,
    `  cursor = body.data.next_cursor;`,
    `} while (cursor);`,
    `console.log(all.length);`,
  ].join('\n');
}
