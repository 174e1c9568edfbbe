import { missingEnvMessage, type DocsLanguage } from './openapi-view';

/**
 * The TypeScript SDK's sample on /docs/api (@poi/sdk, packages/sdk): one typed page, suggestions
 * for what is typed, every page with searchAll, and a typed error (a limit over 100 is a 400 with errors[]). The SDK's tests
 * run this very text against the server (packages/sdk/test/sdk-server.test.ts). The English one (/docs/api?lang=en)
 * asks for English error messages and has English comments.
 */
export function sdkExample(server: string, language: DocsLanguage = 'ja'): string {
  const en = language === 'en';
  return [
    `import { createPoiClient, PoiApiError } from '@poi/sdk';`,
    '',
    ...['POI_API_KEY', 'POI_DATASET_ID'].map((name) => `if (!process.env.${name}) throw new Error('${missingEnvMessage(name, language)}');`),
    `const poi = createPoiClient({ apiKey: process.env.POI_API_KEY, baseUrl: '${server}'${en ? ", language: 'en'" : ''} });`,
    `const dataset_id = process.env.POI_DATASET_ID;`,
    '',
    en ? `// One page (typed answers: page.pois[0].name is a string)` : `// 1ページ分(応答は型付き: page.pois[0].name は string)`,
    `const page = await poi.search({ dataset_id, keyword: 'カフェ', latitude: 35.681236, longitude: 139.767125, radius: 1000 });`,
    `console.log(page.total, page.pois.map((p) => p.name));`,
    '',
    en
      ? `// Type-ahead: suggestions for kana or romaji typed so far (each call is billed as one suggest)`
      : `// 入力補完: 入力途中のかな・ローマ字から候補(1回が1サジェストとして課金されます)`,
    `const { suggestions } = await poi.suggest({ dataset_id, q: 'かふぇ', limit: 5 });`,
    `console.log(suggestions.map((s) => \`\${s.name} (\${s.match})\`));`,
    '',
    en ? `// Every POI: follows next_cursor for you (each page is billed as one search)` : `// 全件: next_cursor を自動でたどります(1ページが1検索として課金されます)`,
    `const names = [];`,
    `for await (const p of poi.searchAll({ dataset_id, limit: 100 })) names.push(p.name);`,
    `console.log(names.length);`,
    '',
    en
      ? `// Errors are typed exceptions (429 and 503 only after waiting Retry-After and retrying)`
      : `// エラーは型付きの例外です(429・503 は Retry-After の秒数だけ待って自動で再試行した後)`,
    `try {`,
    `  await poi.search({ dataset_id, limit: 1000 });`,
    `} catch (e) {`,
    `  if (!(e instanceof PoiApiError)) throw e;`,
    `  console.log(e.status, e.code, e.message, e.errors, e.requestId);`,
    `}`,
  ].join('\n');
}
