import { loginResponseSchema, requestOtpResponseSchema, type LoginResponse, type RequestOtpResponse } from '@poi/shared/schemas/auth';
import { apiClient } from '../../../lib/api-client';

export async function requestOtp(email: string, redirect?: string): Promise<RequestOtpResponse> {
  const res = await apiClient.post('/console/v1/auth/request-otp', { email, ...(redirect ? { redirect } : {}) });
  return requestOtpResponseSchema.parse(res.data);
}

export async function verifyOtp(email: string, code: string): Promise<LoginResponse> {
  const res = await apiClient.post('/console/v1/auth/verify-otp', { email, code });
  return loginResponseSchema.parse(res.data);
}

/** Spends the link: called only from the magic-link page's button, never on load. */
export async function verifyMagicLink(token: string): Promise<LoginResponse> {
  const res = await apiClient.post(`/console/v1/auth/magic/${encodeURIComponent(token)}`);
  return loginResponseSchema.parse(res.data);
}

export async function logout(): Promise<void> {
  await apiClient.post('/console/v1/auth/logout');
}
