export const docsKeys = {
  all: ['docs'] as const,
  openapi: (language: 'ja' | 'en' = 'ja') => [...docsKeys.all, 'openapi', language] as const,
};
