import { describe, expect, it } from 'vitest';
import { fileNameOf } from './download';

describe('fileNameOf', () => {
  it('prefers the RFC 5987 filename* over the ASCII filename', () => {
    expect(fileNameOf(`attachment; filename="invoices.csv"; filename*=UTF-8''%E8%AB%8B%E6%B1%82%E6%9B%B8.csv`)).toBe('請求書.csv');
  });

  it('reads a quoted or bare filename when there is no filename*', () => {
    expect(fileNameOf('attachment; filename="INV-2026-0001.pdf"')).toBe('INV-2026-0001.pdf');
    expect(fileNameOf('attachment; filename=export.geojson')).toBe('export.geojson');
  });

  it('falls back to the ASCII name when filename* has a malformed escape', () => {
    expect(fileNameOf(`attachment; filename="fallback.csv"; filename*=UTF-8''%E8%AB`)).toBe('fallback.csv');
  });

  it('answers undefined when the header names no file', () => {
    expect(fileNameOf(undefined)).toBeUndefined();
    expect(fileNameOf('attachment')).toBeUndefined();
    expect(fileNameOf(`attachment; filename*=UTF-8''%ZZ`)).toBeUndefined();
  });
});
