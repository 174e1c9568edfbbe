import { apiClient, getParsed } from './api-client';
import { downloadFile } from './download';
import type { Params } from './admin-query-keys';

/*
 * What every admin call shares (the console specification's "Admin"): list parameters without their empty values, and
 * answers read through the shared response schema so a drifted server fails loudly here.
 */

interface Envelope<T> {
  parse(value: unknown): { data: T };
}

const clean = (p: Params) => Object.fromEntries(Object.entries(p).filter(([, v]) => v !== ''));

/** A list or detail read; empty filters are left out so the server applies its defaults. */
export const getAdmin = <T>(url: string, schema: Envelope<T>, params?: Params): Promise<T> => getParsed(url, schema, params ? clean(params) : undefined);

export async function postParsed<T>(url: string, body: unknown, schema: Envelope<T>): Promise<T> {
  return schema.parse((await apiClient.post(url, body)).data).data;
}

export const downloadCsv = (url: string, fallbackName: string, params: Params = {}) => downloadFile(url, fallbackName, clean(params));
