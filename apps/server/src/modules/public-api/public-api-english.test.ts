import { describe, expect, it } from 'vitest';
import { searchMessages } from '@poi/shared/schemas/pois';
import { suggestMessages } from '@poi/shared/schemas/suggest';
import { englishOf } from '../../lib/english-messages';
import { publicApiMessages } from './public-api.service';
import { checkSearchQuery, summarizeQueryErrors } from './strict-query';

const JAPANESE = /[\u3040-\u30ff\u4e00-\u9fff]/;

/**
 * Every message constant of the public API has English (lib/english-messages.ts), including
 * those route tests reach only through a state (a budget, a trial's quota): a constant added to
 * one of these tables without English fails here. The route sweep
 * (apps/server/test/public-api-english.test.ts) covers the messages written inline in schemas.
 */
describe('English of the public API messages', () => {
  const constants: Array<[string, string]> = [
    ...Object.entries(publicApiMessages).map(([name, m]): [string, string] => [`publicApiMessages.${name}`, typeof m === 'function' ? m(12345) : m]),
    ...Object.entries(searchMessages).map(([name, m]): [string, string] => [`searchMessages.${name}`, m]),
    ...Object.entries(suggestMessages).map(([name, m]): [string, string] => [`suggestMessages.${name}`, m]),
  ];

  it.each(constants)('%s', (_name, message) => {
    const english = englishOf(message);
    expect(english).toBeDefined();
    expect(english).not.toMatch(JAPANESE);
  });

  it('words numbers and parameter names as the Japanese does', () => {
    expect(englishOf(publicApiMessages.trialQuotaExceeded(1000))).toBe("This month's free searches (1,000) are used up. Upgrade your plan at /upgrade");
    expect(englishOf(publicApiMessages.budgetExceeded(5000))).toBe("Searches are stopped: this month's budget limit (¥5,000) has been reached. Change the budget at /billing");
    expect(englishOf('緯度は-90から90の範囲で指定してください')).toBe('latitude must be between -90 and 90');
    expect(englishOf('半径は1から50000メートルの範囲で指定してください')).toBe('radius must be between 1 and 50000 metres');
    // A label the table does not know is no English at all, not a half-translated sentence.
    expect(englishOf('高さは数値で指定してください')).toBeUndefined();
    expect(englishOf('まったく新しいメッセージ')).toBeUndefined();
  });

  it('has English for every message of the strict query check', () => {
    const errors = checkSearchQuery('lat=1&lng=2&foo=3&%ZZ=1&keyword=%E3%81&limit=1&limit=2&latitude=%2035');
    expect(errors.length).toBeGreaterThanOrEqual(6);
    for (const message of [...errors.map((e) => e.message), summarizeQueryErrors(errors)]) {
      expect(englishOf(message), message).toBeDefined();
      expect(englishOf(message)).not.toMatch(JAPANESE);
    }
  });
});
