import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  apiKeyListResponseSchema,
  apiKeyResponseSchema,
  apiKeySecretResponseSchema,
  type ApiKey,
  type ApiKeySecretResponse,
  type CreateApiKeyBody,
} from '@poi/shared/schemas/api-keys';
import { apiClient, getParsed } from '../../../lib/api-client';
import { usageKeys } from '../../../lib/query-keys';

export const apiKeyKeys = {
  all: ['api-keys'] as const,
  list: () => [...apiKeyKeys.all, 'list'] as const,
};

export async function getApiKeys() {
  return getParsed('/console/v1/api-keys', apiKeyListResponseSchema);
}

export const apiKeysQuery = () => queryOptions({ queryKey: apiKeyKeys.list(), queryFn: getApiKeys });
export const useApiKeys = () => useQuery(apiKeysQuery());

export type IssuedKey = ApiKeySecretResponse['data'];

export async function createApiKey(body: CreateApiKeyBody): Promise<IssuedKey> {
  const res = await apiClient.post('/console/v1/api-keys', body);
  return apiKeySecretResponseSchema.parse(res.data).data;
}

export async function revokeApiKey(id: string): Promise<ApiKey> {
  const res = await apiClient.post(`/console/v1/api-keys/${encodeURIComponent(id)}/revoke`);
  return apiKeyResponseSchema.parse(res.data).data.api_key;
}

export async function rotateApiKey(id: string): Promise<IssuedKey> {
  const res = await apiClient.post(`/console/v1/api-keys/${encodeURIComponent(id)}/rotate`);
  return apiKeySecretResponseSchema.parse(res.data).data;
}

/** Mutations of keys refresh the list and the figures that count active keys. */
function useKeyMutation<TArg, TResult>(fn: (arg: TArg) => Promise<TResult>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: async () => {
      await Promise.all([client.invalidateQueries({ queryKey: apiKeyKeys.all }), client.invalidateQueries({ queryKey: usageKeys.all })]);
    },
  });
}

export const useCreateApiKey = () => useKeyMutation(createApiKey);
export const useRevokeApiKey = () => useKeyMutation(revokeApiKey);
export const useRotateApiKey = () => useKeyMutation(rotateApiKey);
