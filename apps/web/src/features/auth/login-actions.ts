// What the login page needs only once the visitor starts typing: the shared e-mail rule (zod) and
// the sign-in request (the HTTP client). The page renders without them (bench/bundle-budget.ts).
export { emailSchema } from '@poi/shared/schemas/auth';
export { requestOtp } from './api/auth-api';
export { getErrorMessage } from '../../lib/api-client';
