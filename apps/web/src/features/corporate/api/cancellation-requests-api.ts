import { useQuery } from '@tanstack/react-query';
import { adminCancellationRequestsResponseSchema, type AdminCancellationRequest } from '@poi/shared/schemas/plans';
import { getAdmin } from '../../../lib/admin-api';
import { adminCorporateKeys } from '../../../lib/admin-query-keys';

/** Under adminCorporateKeys.all, so a suspension (how a request is processed) refreshes it. */
const cancellationRequestsKey = () => [...adminCorporateKeys.all, 'cancellation-requests'] as const;

export const getCancellationRequests = async (): Promise<AdminCancellationRequest[]> =>
  (await getAdmin('/console/v1/admin/corporate/cancellation-requests', adminCancellationRequestsResponseSchema)).requests;

export const useCancellationRequests = () => useQuery({ queryKey: cancellationRequestsKey(), queryFn: getCancellationRequests });
