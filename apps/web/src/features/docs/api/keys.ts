export const docsKeys = {
  all: ['docs'] as const,
  openapi: () => [...docsKeys.all, 'openapi'] as const,
};
