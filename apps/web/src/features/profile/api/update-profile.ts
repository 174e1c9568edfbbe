import { useMutation } from '@tanstack/react-query';
import { userResponseSchema, type UpdateProfileBody, type User } from '@poi/shared/schemas/users';
import { apiClient } from '../../../lib/api-client';

export async function updateProfile(body: UpdateProfileBody): Promise<User> {
  const res = await apiClient.patch('/console/v1/user', body);
  return userResponseSchema.parse(res.data).user;
}

export const useUpdateProfile = () => useMutation({ mutationFn: updateProfile });
