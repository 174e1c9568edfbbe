/**
 * Query keys that more than one feature touches. The usage feature reads with them; issuing,
 * rotating or revoking an API key changes the usage summary's key count, so api-keys invalidates
 * through the same factory without importing the usage feature.
 */
export const usageKeys = {
  all: ['usage'] as const,
  summary: (yearMonth: string) => [...usageKeys.all, 'summary', yearMonth] as const,
};
