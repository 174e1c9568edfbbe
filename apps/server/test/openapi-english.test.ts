import { fileURLToPath } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import { lintFromString, loadConfig } from '@redocly/openapi-core';
import type { OpenAPI } from 'openapi-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { englishOpenApi } from '../src/modules/public-api/public-api.openapi-en';
import { createTestContext, type TestContext } from './helpers';

/* /openapi.json?lang=en: the public API's reference in English, for /docs/api?lang=en. */

let ctx: TestContext;
type Doc = Parameters<typeof englishOpenApi>[0];
let japanese: Doc;
let english: Doc;

const JAPANESE = /[\u3040-\u30ff\u4e00-\u9fff]/;
/** Japanese quoted in an English text ("東京タワー") is sample input, not an untranslated part. */
const unquoted = (text: string) => text.replace(/"[^"]*"/g, '');

/** Every prose text of a document part: summaries, descriptions, titles, tags and sample error messages, with where they are. */
function textsOf(node: unknown, at = ''): Array<[string, string]> {
  if (Array.isArray(node)) return node.flatMap((item, i) => textsOf(item, `${at}[${i}]`));
  if (!node || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]): Array<[string, string]> => {
    const here = `${at}.${key}`;
    if (['example', 'default', 'enum', 'pattern'].includes(key)) return [];
    if (['summary', 'description', 'title'].includes(key) && typeof value === 'string') return [[here, value]];
    if (key === 'tags' && Array.isArray(value)) return value.filter((t) => typeof t === 'string').map((t, i) => [`${here}[${i}]`, t]);
    if (key === 'examples' && value && typeof value === 'object') {
      return Object.entries(value).flatMap(([name, e]) => {
        const { summary, value: sample } = e as { summary?: string; value?: { success?: boolean; error?: { message: string }; errors?: Array<{ message: string }> } };
        const texts: Array<[string, string]> = summary ? [[`${here}.${name}.summary`, summary]] : [];
        if (sample?.success === false) {
          texts.push([`${here}.${name}.error.message`, sample.error!.message]);
          sample.errors?.forEach((x, i) => texts.push([`${here}.${name}.errors[${i}].message`, x.message]));
        }
        return texts;
      });
    }
    return textsOf(value, here);
  });
}

const publicPaths = (doc: Doc) => Object.keys(doc.paths).filter((p) => p.startsWith('/api/'));

beforeAll(async () => {
  ctx = await createTestContext();
  japanese = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const res = await ctx.app.inject({ method: 'GET', url: '/openapi.json?lang=en' });
  expect(res.statusCode).toBe(200);
  english = res.json();
});

afterAll(async () => {
  await ctx?.close();
});

describe('/openapi.json?lang=en', () => {
  it('has English for every public-API text of the Japanese document', () => {
    // A text listed here was added or edited in Japanese: add its English to public-api.openapi-en.ts.
    expect(englishOpenApi(japanese).missing).toEqual([]);
  });

  it('shows no Japanese in its summaries, descriptions, tags and sample error messages', () => {
    const texts = textsOf({ paths: english.paths, components: english.components, info: english.info });
    expect(texts.length).toBeGreaterThan(50);
    const untranslated = texts.filter(([, text]) => JAPANESE.test(unquoted(text)));
    expect(untranslated).toEqual([]);
  });

  it('documents the same public operations, parameters, statuses and sample bodies (but their messages) as the Japanese one', () => {
    expect(Object.keys(english.paths)).toEqual(publicPaths(japanese));
    for (const path of publicPaths(japanese)) {
      const ja = japanese.paths[path] as Record<string, { operationId: string; parameters?: Array<{ name: string; required?: boolean }>; responses: Record<string, unknown> }>;
      const en = english.paths[path] as typeof ja;
      expect(Object.keys(en)).toEqual(Object.keys(ja));
      for (const method of Object.keys(ja)) {
        expect(en[method]!.operationId).toBe(ja[method]!.operationId);
        expect(en[method]!.parameters?.map((p) => [p.name, p.required])).toEqual(ja[method]!.parameters?.map((p) => [p.name, p.required]));
        expect(Object.keys(en[method]!.responses)).toEqual(Object.keys(ja[method]!.responses));
      }
    }
    // The texts are translated, not dropped: as many in English as in Japanese.
    const jaTexts = textsOf(Object.fromEntries(publicPaths(japanese).map((p) => [p, japanese.paths[p]])));
    expect(textsOf(english.paths).map(([at]) => at)).toEqual(jaTexts.map(([at]) => at));
    expect(Object.keys(english.components?.securitySchemes ?? {}).sort()).toEqual(['apiKeyBearer', 'apiKeyHeader']);
  });

  it('translates a sample error as the API answers it in English', () => {
    const search = english.paths['/api/v1/poi/search'] as { get: { responses: Record<string, { content: { 'application/json': { examples: Record<string, { value: { error: { message: string } } }> } } }> } };
    expect(search.get.responses['401']!.content['application/json'].examples.missing!.value.error.message).toBe(
      'An API key is required. Send it as Authorization: Bearer <API key> or in the X-API-Key header',
    );
  });

  it("validates as OpenAPI 3 and passes Redocly's rules as the Japanese one does (a generated client can take it)", async () => {
    await expect(SwaggerParser.validate(structuredClone(english) as unknown as OpenAPI.Document)).resolves.toBeTruthy();
    const config = await loadConfig({ configPath: fileURLToPath(new URL('../../../redocly.yaml', import.meta.url)) });
    const problems = await lintFromString({ source: JSON.stringify(english), absoluteRef: 'openapi.en.json', config });
    expect(problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  it('leaves the default document Japanese and whole', async () => {
    expect(japanese.info.description).toMatch(JAPANESE);
    expect(Object.keys(japanese.paths).some((p) => p.startsWith('/console/v1/'))).toBe(true);
  });
});
