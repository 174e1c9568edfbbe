import { describe, expect, it } from 'vitest';
import { IMPORT_MAX_BYTES, IMPORT_MAX_EXPANDED_BYTES } from './limits';
import { messages } from './messages';

const mb = (bytes: number) => `${bytes / 1024 / 1024}MB`;

describe('the import size texts', () => {
  it('name the real limits and the gzip way round the upload limit', () => {
    expect(messages.importTooLarge).toBe(`ファイルサイズが${mb(IMPORT_MAX_BYTES)}を超えています。gzip圧縮したファイル(.csv.gz など)なら、送信時${mb(IMPORT_MAX_BYTES)}・展開後${mb(IMPORT_MAX_EXPANDED_BYTES)}まで取り込めます`);
    expect(messages.importExpandedTooLarge).toBe(`展開後のファイルサイズが${mb(IMPORT_MAX_EXPANDED_BYTES)}を超えています`);
  });
});
