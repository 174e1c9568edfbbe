export { createPoiClient, type Poi, type PoiClient, type PoiClientOptions, type PoiFeatureCollection, type PoiField, type PoiWith, type RequestOptions, type SearchAllParams, type SearchPage, type SearchParams, type SearchParamsWithFields, type SuggestParams, type SuggestResult, type Suggestion } from './client.js';
export {
  PoiApiError,
  PoiAuthError,
  PoiNotFoundError,
  PoiRateLimitError,
  PoiUnavailableError,
  PoiValidationError,
  type PoiErrorKind,
  type PoiFieldError,
} from './errors.js';
export type { paths, operations } from './schema.js';
