import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  confirmTransferResponseSchema,
  pendingTransfersResponseSchema,
  statementProposalsResponseSchema,
  type ConfirmTransferBody,
  type PendingTransfers,
  type StatementProposal,
} from '@poi/shared/schemas/transfers';
import { apiClient } from '../../../lib/api-client';
import { getAdmin, postParsed } from '../../../lib/admin-api';
import { adminCorporateKeys, adminRevenueKeys, adminTransfersKeys, adminUsersKeys, type Params } from '../../../lib/admin-query-keys';

export const getPendingTransfers = (params: Params): Promise<PendingTransfers> => getAdmin('/console/v1/admin/transfers/pending', pendingTransfersResponseSchema, params);
export const usePendingTransfers = (params: Params) =>
  useQuery({ queryKey: adminTransfersKeys.pending(params), queryFn: () => getPendingTransfers(params), placeholderData: keepPreviousData });

/** Reads a bank statement CSV and proposes which open invoice each line pays; nothing is booked. */
export async function proposeStatementMatches(file: File): Promise<StatementProposal[]> {
  const form = new FormData();
  form.append('file', file);
  const res = await apiClient.post('/console/v1/admin/transfers/statement', form);
  return statementProposalsResponseSchema.parse(res.data).data.proposals;
}

export const confirmTransfer = (invoiceId: string, body: ConfirmTransferBody) =>
  postParsed(`/console/v1/admin/transfers/${encodeURIComponent(invoiceId)}/confirm`, body, confirmTransferResponseSchema);

/**
 * A booked transfer leaves the pending list, changes collected and outstanding money (revenue,
 * dashboard) and the invoice's status in the user and corporate details that list it.
 */
export function useConfirmTransfer(invoiceId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: ConfirmTransferBody) => confirmTransfer(invoiceId, body),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: adminTransfersKeys.all });
      void client.invalidateQueries({ queryKey: adminRevenueKeys.all });
      void client.invalidateQueries({ queryKey: adminUsersKeys.details() });
      void client.invalidateQueries({ queryKey: adminCorporateKeys.details() });
    },
  });
}
