import { describe, expect, it } from 'vitest';
import { attachment, downloadName } from './http';

describe('attachment', () => {
  it('names the file after the dataset (RFC 5987) with an ASCII fallback', () => {
    expect(attachment('東京 カフェ.csv', { stem: 'dataset-abc' })).toBe(
      `attachment; filename="dataset-abc.csv"; filename*=UTF-8''${encodeURIComponent('東京 カフェ.csv')}`,
    );
    expect(attachment('Tokyo "cafes" 2026.csv.gz', { stem: 'dataset-abc' })).toBe(
      `attachment; filename="Tokyo_cafes_2026.csv.gz"; filename*=UTF-8''Tokyo%20_cafes_%202026.csv.gz`,
    );
  });

  it('sends a given ASCII name, and both names even when they are the same', () => {
    expect(attachment('ユーザー一覧.csv', { ascii: 'users.csv' })).toBe(`attachment; filename="users.csv"; filename*=UTF-8''${encodeURIComponent('ユーザー一覧.csv')}`);
    expect(attachment('INV-2026-05-0001.pdf', { stem: 'invoice-x' })).toBe(`attachment; filename="INV-2026-05-0001.pdf"; filename*=UTF-8''INV-2026-05-0001.pdf`);
  });

  it("percent-encodes what RFC 8187 does not allow bare (' ( ) *)", () => {
    expect(attachment("it's (1)*.csv", { stem: 'x' })).toBe(`attachment; filename="it's_(1).csv"; filename*=UTF-8''it%27s%20%281%29_.csv`);
  });
});

describe('downloadName', () => {
  it('joins the stem and the extensions', () => {
    expect(downloadName('users', 'csv')).toBe('users.csv');
    expect(downloadName('東京 カフェ', 'csv', 'gz')).toBe('東京 カフェ.csv.gz');
  });
});
