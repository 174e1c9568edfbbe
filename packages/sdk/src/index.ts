export { createPoiClient, type Poi, type PoiClient, type PoiClientOptions, type RequestOptions, type SearchAllParams, type SearchPage, type SearchParams } from './client';
export {
  PoiApiError,
  PoiAuthError,
  PoiNotFoundError,
  PoiRateLimitError,
  PoiUnavailableError,
  PoiValidationError,
  type PoiErrorKind,
  type PoiFieldError,
} from './errors';
export type { paths, operations } from './schema';
