import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { SEARCH_SAMPLES } from '@poi/shared/search-samples';
import { SearchSamples } from './search-samples';

describe('SearchSamples (the /docs/api samples of bbox, tags and category, GeoJSON and fields)', () => {
  it.each(['ja', 'en'] as const)('shows one curl per capability with its parameters (%s)', (language) => {
    render(<SearchSamples server="https://api.example.com" path="/api/v1/poi/search" language={language} />);
    expect(SEARCH_SAMPLES.map((s) => s.id)).toEqual(['bbox', 'tags', 'geojson', 'fields']);
    for (const sample of SEARCH_SAMPLES) {
      const code = screen.getByLabelText(sample.title[language]).textContent ?? '';
      expect(code).toContain('curl -G "https://api.example.com/api/v1/poi/search"');
      expect(code).toContain('--data-urlencode "dataset_id=$POI_DATASET_ID"');
      for (const [name, value] of sample.params) expect(code).toContain(`--data-urlencode "${name}=${value}"`);
    }
  });
});
