import { describe, expect, it } from 'vitest';
import { preferredLanguage } from './accept-language';

describe('preferredLanguage', () => {
  it.each([
    ['en-US,en;q=0.9,ja;q=0.5', 'en'],
    ['ja,en;q=0.8', 'ja'],
    ['en', 'en'],
    ['EN-gb', 'en'],
    ['en-US', 'en'],
    ['ja-JP', 'ja'],
    ['fr-FR,fr;q=0.9', 'ja'],
    ['fr,en;q=0.1', 'en'],
    ['ja;q=0.4,en;q=0.5', 'en'],
    ['ja;q=0, en', 'en'],
    ['en;q=0', 'ja'],
    ['en;q=0.5,ja;q=0.5', 'en'],
    ['ja;q=0.5,en;q=0.5', 'ja'],
    ['*', 'ja'],
    ['ja;q=0,*', 'en'],
    ['de,*;q=0.5', 'ja'],
    ['en;q=2', 'ja'],
    ['en;q=abc', 'ja'],
    ['en;q=0.1234', 'ja'],
    ['en ; q=0.9 , ja ; q=0.8', 'en'],
    [',,;', 'ja'],
    ['', 'ja'],
    [undefined, 'ja'],
  ])('%s → %s', (header, expected) => {
    expect(preferredLanguage(header)).toBe(expected);
  });
});
