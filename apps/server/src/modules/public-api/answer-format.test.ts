import { describe, expect, it } from 'vitest';
import { answerFormat } from './answer-format';

describe('answerFormat: format= first, then Accept', () => {
  it.each([
    [undefined, undefined, 'json'],
    [undefined, '*/*', 'json'],
    [undefined, 'application/json', 'json'],
    [undefined, 'application/geo+json', 'geojson'],
    [undefined, 'Application/GEO+JSON; charset=utf-8', 'geojson'],
    [undefined, 'application/json;q=0.5, application/geo+json', 'geojson'],
    [undefined, 'application/geo+json, application/json', 'json'],
    [undefined, 'application/geo+json;q=0', 'json'],
    [undefined, 'application/geo+json;q=0.9, application/json;q=0.8', 'geojson'],
    [undefined, 'text/html, application/geo+json;q=0.1', 'geojson'],
    ['json', 'application/geo+json', 'json'],
    ['geojson', 'application/json', 'geojson'],
  ] as const)('format=%s, Accept: %s → %s', (format, accept, expected) => {
    expect(answerFormat(format, accept)).toBe(expected);
  });
});
