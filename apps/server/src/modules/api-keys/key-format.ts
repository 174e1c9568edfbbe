import { hash, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { API_KEY_CHECKSUM_LENGTH, API_KEY_PREFIX, API_KEY_RANDOM_LENGTH } from '@poi/shared/limits';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}([0-9A-Za-z]{${API_KEY_RANDOM_LENGTH}})([0-9A-Za-z]{${API_KEY_CHECKSUM_LENGTH}})$`);
/** How much of the key is kept to show: the prefix and the first random characters. */
const DISPLAY_RANDOM_CHARS = 6;

function toBase62(value: number, width: number): string {
  let out = '';
  let n = value;
  for (let i = 0; i < width; i++) {
    out = BASE62[n % 62]! + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/** CRC-32 of the random part in 6 base62 characters, as GitHub's tokens do: a typo fails it. */
const checksumOf = (random: string) => toBase62(crc32(random) >>> 0, API_KEY_CHECKSUM_LENGTH);

/** A new key: 'poi_live_' + 32 random base62 characters (≈190 bits) + the checksum. */
export function generateApiKey(): string {
  let random = '';
  for (let i = 0; i < API_KEY_RANDOM_LENGTH; i++) random += BASE62[randomInt(62)];
  return `${API_KEY_PREFIX}${random}${checksumOf(random)}`;
}

/** Whether a string has the key's shape and a matching checksum: checked before any database lookup. */
export function isWellFormedApiKey(key: string): boolean {
  const m = KEY_PATTERN.exec(key);
  return !!m && checksumOf(m[1]!) === m[2];
}

// One-shot (Node ≥ 20.12): a Hash object per call cost three times as much, on every public API request.
export const hashApiKey = (key: string): string => hash('sha256', key, 'hex');

export const displayPrefixOf = (key: string): string => key.slice(0, API_KEY_PREFIX.length + DISPLAY_RANDOM_CHARS);
