import { SEARCH_SAMPLES } from '@poi/shared/search-samples';
import { curlExample, type DocsLanguage } from '../openapi-view';

/** The search's map and output options (bbox, tags and category, GeoJSON, fields), one runnable curl each. */
export function SearchSamples({ server, path, language }: { server: string; path: string; language: DocsLanguage }) {
  return (
    <div className="space-y-3" data-testid="search-samples">
      {SEARCH_SAMPLES.map((sample) => (
        <div key={sample.id}>
          <h3 className="mb-1 font-semibold text-gray-900">{sample.title[language]}</h3>
          <pre aria-label={sample.title[language]} tabIndex={0} className="overflow-x-auto rounded-md bg-gray-900 p-4 font-mono text-xs leading-relaxed text-gray-100">
            {curlExample({ server, path, params: [['dataset_id', { env: 'POI_DATASET_ID' }], ...sample.params], language })}
          </pre>
        </div>
      ))}
    </div>
  );
}
