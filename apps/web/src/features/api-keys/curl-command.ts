/** The origin the public API is called on: the configured API host, else this console's. */
export function apiOrigin(): string {
  const configured = import.meta.env.VITE_API_BASE_URL;
  return (configured || window.location.origin).replace(/\/$/, '');
}

/** A ready-to-run search of one dataset with the key, for the getting-started steps. */
export function buildCurlCommand(origin: string, key: string, datasetId: string): string {
  return `curl -H "X-API-Key: ${key}" "${origin}/api/v1/poi/search?dataset_id=${datasetId}&limit=5"`;
}
