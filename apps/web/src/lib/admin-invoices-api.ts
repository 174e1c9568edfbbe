import { invoiceAdjustmentResponseSchema, type CreditNoteBody, type InvoiceAdjustmentResult } from '@poi/shared/schemas/invoices';
import { postParsed } from './admin-api';

/*
 * An administrator's adjustments of an issued invoice (void, credit note, write-off). In lib/
 * because the user detail and the corporate detail both offer them (features do not import each
 * other); each answer is read through the shared schema.
 */

const url = (id: string, action: string) => `/console/v1/admin/invoices/${encodeURIComponent(id)}/${action}`;

export const voidInvoice = (id: string, reason: string): Promise<InvoiceAdjustmentResult> => postParsed(url(id, 'void'), { reason }, invoiceAdjustmentResponseSchema);

export const issueCreditNote = (id: string, body: CreditNoteBody): Promise<InvoiceAdjustmentResult> => postParsed(url(id, 'credit-notes'), body, invoiceAdjustmentResponseSchema);

export const writeOffInvoice = (id: string, reason: string): Promise<InvoiceAdjustmentResult> => postParsed(url(id, 'write-off'), { reason }, invoiceAdjustmentResponseSchema);
