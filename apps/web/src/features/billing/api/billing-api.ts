import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { billingAccountViewResponseSchema, currentChargesResponseSchema, invoiceDetailResponseSchema, invoiceListResponseSchema, type BillingAccountView, type CurrentCharges, type InvoiceDetail, type InvoiceList } from '@poi/shared/schemas/invoices';
import { budgetResponseSchema, type Budget } from '@poi/shared/schemas/budgets';
import { apiClient } from '../../../lib/api-client';
import { downloadBlob } from '../../../lib/browser-files';

export const BILLING_FETCH_FAILED = '請求情報の取得に失敗しました';

/** The invoice list's filters as the server takes them (empty strings are left out). */
export interface InvoiceFilters {
  issued_from: string;
  issued_to: string;
  amount_min: string;
  amount_max: string;
}

export const INVOICE_PAGE_SIZE = 20;

export const billingKeys = {
  all: ['billing'] as const,
  account: () => [...billingKeys.all, 'account'] as const,
  current: () => [...billingKeys.all, 'current'] as const,
  budget: () => [...billingKeys.all, 'budget'] as const,
  invoices: (filters: InvoiceFilters, page: number) => [...billingKeys.all, 'invoices', filters, page] as const,
  invoice: (id: string) => [...billingKeys.all, 'invoice', id] as const,
};

const filterParams = (f: InvoiceFilters) => Object.fromEntries(Object.entries(f).filter(([, v]) => v !== ''));

export async function getBillingAccount(): Promise<BillingAccountView> {
  return billingAccountViewResponseSchema.parse((await apiClient.get('/console/v1/billing/account')).data).data;
}
export async function getCurrentCharges(): Promise<CurrentCharges> {
  return currentChargesResponseSchema.parse((await apiClient.get('/console/v1/billing/current')).data).data;
}
export async function getBudget(): Promise<Budget> {
  return budgetResponseSchema.parse((await apiClient.get('/console/v1/billing/budget')).data).data;
}
export async function getInvoices(filters: InvoiceFilters, page: number): Promise<InvoiceList> {
  const params = { ...filterParams(filters), limit: INVOICE_PAGE_SIZE, offset: (page - 1) * INVOICE_PAGE_SIZE };
  return invoiceListResponseSchema.parse((await apiClient.get('/console/v1/billing/invoices', { params })).data).data;
}
export async function getInvoice(id: string): Promise<InvoiceDetail> {
  return invoiceDetailResponseSchema.parse((await apiClient.get(`/console/v1/billing/invoices/${encodeURIComponent(id)}`)).data).data;
}

export const useBillingAccount = () => useQuery(queryOptions({ queryKey: billingKeys.account(), queryFn: getBillingAccount }));
export const useCurrentCharges = () =>
  useQuery(queryOptions({ queryKey: billingKeys.current(), queryFn: getCurrentCharges, refetchOnWindowFocus: true, staleTime: 0 }));
export const useBudget = () => useQuery(queryOptions({ queryKey: billingKeys.budget(), queryFn: getBudget }));
export const useInvoices = (filters: InvoiceFilters, page: number) =>
  useQuery({ ...queryOptions({ queryKey: billingKeys.invoices(filters, page), queryFn: () => getInvoices(filters, page) }), placeholderData: keepPreviousData });
export const useInvoice = (id: string) => useQuery(queryOptions({ queryKey: billingKeys.invoice(id), queryFn: () => getInvoice(id), retry: false }));

export function useSaveBudget() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: { monthly_limit: number | null; hard_stop: boolean }) =>
      budgetResponseSchema.parse((await apiClient.post('/console/v1/billing/budget', body)).data).data,
    onSuccess: (budget) => client.setQueryData(billingKeys.budget(), budget),
  });
}

/** Fetches a file through the api client (Bearer token) and saves it under the server's file name. */
export async function downloadFile(url: string, fallbackName: string, params?: Record<string, string>): Promise<void> {
  const res = await apiClient.get(url, { responseType: 'blob', params });
  const disposition = String(res.headers['content-disposition'] ?? '');
  const encoded = /filename\*=UTF-8''([^;]+)/i.exec(disposition)?.[1];
  const plain = /filename="?([^";]+)"?/i.exec(disposition)?.[1];
  downloadBlob(encoded ? decodeURIComponent(encoded) : (plain ?? fallbackName), res.data as Blob);
}

export const downloadInvoicesCsv = (filters: InvoiceFilters) => downloadFile('/console/v1/billing/invoices.csv', 'invoices.csv', filterParams(filters));
export const downloadInvoicePdf = (id: string, number: string | null) => downloadFile(`/console/v1/billing/invoices/${id}/pdf`, `${number ?? id}.pdf`);
export const downloadReceiptPdf = (paymentId: string, receiptNumber: string) => downloadFile(`/console/v1/billing/payments/${paymentId}/receipt.pdf`, `${receiptNumber}.pdf`);
