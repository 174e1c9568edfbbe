import { describe, expect, it } from 'vitest';
import { buildCurlCommand } from './curl-command';

describe('buildCurlCommand', () => {
  it('builds a command a shell runs as is', () => {
    expect(buildCurlCommand('http://localhost:8080', 'poi_live_abc', '6f1c0e1e-0000-4000-8000-000000000000')).toBe(
      'curl -H "X-API-Key: poi_live_abc" "http://localhost:8080/api/v1/poi/search?dataset_id=6f1c0e1e-0000-4000-8000-000000000000&limit=5"',
    );
  });
});
