import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { billingAccountViewResponseSchema, currentChargesResponseSchema, invoiceDetailResponseSchema, invoiceListResponseSchema, type BillingAccountView, type CurrentCharges, type InvoiceDetail, type InvoiceList } from '@poi/shared/schemas/invoices';
import { payInvoiceResponseSchema } from '@poi/shared/schemas/payments';
import { apiClient, getParsed } from '../../../lib/api-client';
import { downloadFile } from '../../../lib/download';

export const BILLING_FETCH_FAILED = '請求情報の取得に失敗しました';

/** The invoice list's filters as the server takes them (empty strings are left out). */
export interface InvoiceFilters {
  issued_from: string;
  issued_to: string;
  amount_min: string;
  amount_max: string;
}

export const INVOICE_PAGE_SIZE = 20;

export const invoiceKeys = {
  all: ['invoices'] as const,
  account: () => [...invoiceKeys.all, 'account'] as const,
  current: () => [...invoiceKeys.all, 'current'] as const,
  invoices: (filters: InvoiceFilters, page: number) => [...invoiceKeys.all, 'invoices', filters, page] as const,
  invoice: (id: string) => [...invoiceKeys.all, 'invoice', id] as const,
};

const filterParams = (f: InvoiceFilters) => Object.fromEntries(Object.entries(f).filter(([, v]) => v !== ''));

export async function getBillingAccount(): Promise<BillingAccountView> {
  return getParsed('/console/v1/billing/account', billingAccountViewResponseSchema);
}
export async function getCurrentCharges(): Promise<CurrentCharges> {
  return getParsed('/console/v1/billing/current', currentChargesResponseSchema);
}
export async function getInvoices(filters: InvoiceFilters, page: number): Promise<InvoiceList> {
  const params = { ...filterParams(filters), limit: INVOICE_PAGE_SIZE, offset: (page - 1) * INVOICE_PAGE_SIZE };
  return getParsed('/console/v1/billing/invoices', invoiceListResponseSchema, params);
}
export async function getInvoice(id: string): Promise<InvoiceDetail> {
  return getParsed(`/console/v1/billing/invoices/${encodeURIComponent(id)}`, invoiceDetailResponseSchema);
}

export const useBillingAccount = () => useQuery(queryOptions({ queryKey: invoiceKeys.account(), queryFn: getBillingAccount }));
export const useCurrentCharges = () =>
  useQuery(queryOptions({ queryKey: invoiceKeys.current(), queryFn: getCurrentCharges, refetchOnWindowFocus: true, staleTime: 0 }));
export const useInvoices = (filters: InvoiceFilters, page: number) =>
  useQuery({ ...queryOptions({ queryKey: invoiceKeys.invoices(filters, page), queryFn: () => getInvoices(filters, page) }), placeholderData: keepPreviousData });
/** How often the invoice is fetched again after returning from Checkout, until the webhook booked the payment. */
export const PAYMENT_POLL_MS = 1500;

/** One invoice; with `poll`, fetched again every PAYMENT_POLL_MS while something is still owed. */
export const useInvoice = (id: string, poll = false) =>
  useQuery({
    ...queryOptions({ queryKey: invoiceKeys.invoice(id), queryFn: () => getInvoice(id), retry: false }),
    refetchInterval: (query) => (poll && (query.state.data?.remaining ?? 0) > 0 ? PAYMENT_POLL_MS : false),
  });

/** Invoice states in which something may still be paid. */
export const PAYABLE_STATUSES = ['issued', 'partially_paid', 'overdue'] as const;

/** A card invoice with something still owed: 「今すぐ支払う」 applies. */
export const isPayableByCard = (inv: { payment_method: string; status: string; remaining: number }) =>
  inv.payment_method === 'card' && inv.remaining > 0 && (PAYABLE_STATUSES as readonly string[]).includes(inv.status);

/**
 * 「今すぐ支払う」: the server opens (or reuses) Stripe Checkout in payment mode for what remains;
 * the browser leaves for the hosted page and comes back to /billing/invoices/:id?paid=1.
 */
export async function payInvoice(id: string): Promise<void> {
  const { url } = payInvoiceResponseSchema.parse((await apiClient.post(`/console/v1/billing/invoices/${encodeURIComponent(id)}/pay`)).data).data;
  window.location.assign(url);
}

export const downloadInvoicesCsv = (filters: InvoiceFilters) => downloadFile('/console/v1/billing/invoices.csv', 'invoices.csv', filterParams(filters));
export const downloadInvoicePdf = (id: string, number: string | null) => downloadFile(`/console/v1/billing/invoices/${id}/pdf`, `${number ?? id}.pdf`);
export const downloadReceiptPdf = (paymentId: string, receiptNumber: string) => downloadFile(`/console/v1/billing/payments/${paymentId}/receipt.pdf`, `${receiptNumber}.pdf`);
/** A credit note's PDF; `pdfPath` is the answer's path under /console/v1. */
export const downloadCreditNotePdf = (pdfPath: string, number: string) => downloadFile(`/console/v1${pdfPath}`, `${number}.pdf`);
