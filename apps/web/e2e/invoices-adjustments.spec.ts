import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import type { LoginResponse } from '@poi/shared/schemas/auth';
import { scanAndShoot } from './support/a11y';
import { uniqueEmail } from './support/auth';
import { BILLING_ADMIN_EMAIL, hasFaketime, signInAt, startBillingServer, storeSessionAt, type BillingServer } from './support/billing-server';

/*
 * A credit note (適格返還請求書) from the admin screen to the customer's invoice page, in a real
 * browser against a server of its own whose clock libfaketime moves into the next month to close
 * it: the admin issues the note from the user detail's invoice list (reason required, the error
 * tied to its field, focus back on the button), and the customer sees it with its PDF.
 */

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

let server: BillingServer;

test.describe.configure({ mode: 'serial' });
test.skip(!hasFaketime, 'needs libfaketime (Debian package faketime; CI installs it)');

test.beforeAll(async () => {
  // An offset of its own: the other specs' billing servers sit at E2E_PORT + 7 and + 8.
  server = await startBillingServer(57);
});

test.afterAll(async () => {
  await server?.stop();
});

const signIn = (request: APIRequestContext, email: string) => signInAt(server, request, email);
const setSession = (page: Page, login: LoginResponse) => storeSessionAt(page, server, login);

test('an admin issues a credit note from the user detail and the customer sees it with its PDF', async ({ page, request }) => {
  test.setTimeout(180_000);
  const base = server.baseUrl;
  const admin = await signIn(request, BILLING_ADMIN_EMAIL);

  // A customer (individual) searches a paid dataset this month.
  const email = uniqueEmail('credit-note');
  const customer = await signIn(request, email);
  const changed = await request.post(`${base}/console/v1/admin/users/${customer.user.id}/change-type`, { headers: auth(admin.token), data: { account_type: 'individual', reason: 'テスト' } });
  expect(changed.ok(), await changed.text()).toBe(true);
  const created = await request.post(`${base}/console/v1/admin/datasets/assign`, {
    headers: auth(admin.token),
    data: { name: '返還テスト店舗', price_per_search: 100, assigned_user_id: null, provider_user_id: null },
  });
  expect(created.ok(), await created.text()).toBe(true);
  const datasetId = (await created.json()).data.dataset_id as string;
  const key = (await (await request.post(`${base}/console/v1/api-keys`, { headers: auth(customer.token), data: { name: '返還テスト' } })).json()).data.key as string;
  for (let i = 0; i < 10; i++) expect((await request.get(`${base}/api/v1/poi/search?dataset_id=${datasetId}`, { headers: { 'x-api-key': key } })).status()).toBe(200);
  const current = async () => (await (await request.get(`${base}/console/v1/billing/current`, { headers: auth(customer.token) })).json()).data;
  await expect.poll(async () => (await current()).total_estimate, { timeout: 10_000 }).toBe(1_100);
  const month = (await current()).year_month as string;

  // Next month: the admin closes it.
  const jst = new Date(Date.now() + 9 * 3600_000);
  await server.setClockOffsetDays(Math.ceil((Date.UTC(jst.getUTCFullYear(), jst.getUTCMonth() + 1, 2, 3) - Date.now()) / 86_400_000));
  const admin2 = await signIn(request, BILLING_ADMIN_EMAIL);
  await expect
    .poll(async () => (await request.post(`${base}/console/v1/admin/billing/close`, { headers: auth(admin2.token), data: { year_month: month } })).status(), { timeout: 20_000 })
    .toBe(200);

  // The admin opens the customer's detail and issues a credit note of ¥330 from its invoice list.
  await setSession(page, admin2);
  await page.goto(`${base}/admin/users?q=${encodeURIComponent(email)}`);
  await page.getByRole('button', { name: new RegExp(email) }).click();
  const detail = page.getByRole('dialog', { name: /ユーザー詳細/ });
  const opener = detail.getByRole('button', { name: /を返還請求書を発行$/ });
  await expect(opener).toBeVisible();
  await opener.click();
  const dialog = page.getByRole('dialog', { name: /返還請求書を発行/ });
  await dialog.getByRole('button', { name: '発行する' }).click();
  // Both fields refuse empty input, each error read with its field.
  const amount = dialog.getByLabel(/返還額/);
  await expect(amount).toHaveAttribute('aria-invalid', 'true');
  await expect(amount).toHaveAccessibleDescription(/返還額は1円以上の整数/);
  await expect(dialog.getByLabel(/理由/)).toHaveAccessibleDescription('理由を入力してください');
  await scanAndShoot(page, 'admin-credit-note-dialog');
  await amount.fill('330');
  await dialog.getByLabel(/理由/).fill('障害による一部返金');
  await dialog.getByRole('button', { name: '発行する' }).click();
  await expect(dialog).toBeHidden();
  await expect(opener).toBeFocused();
  await scanAndShoot(page, 'admin-user-invoice-actions');

  // The customer (signed in again after the clock moved) sees the note and its PDF on the invoice page.
  const again = await signIn(request, email);
  const list = (await (await request.get(`${base}/console/v1/billing/invoices`, { headers: auth(again.token) })).json()).data.invoices as Array<{ id: string; credited: number }>;
  expect(list).toHaveLength(1);
  expect(list[0]!.credited).toBe(330);
  await setSession(page, again);
  await page.goto(`${base}/billing/invoices/${list[0]!.id}`);
  const notes = page.getByRole('region', { name: '返還請求書' });
  await expect(notes).toBeVisible();
  await expect(notes.getByText('返還額 ¥330(うち消費税 10% ¥30)')).toBeVisible();
  await expect(notes.getByText('理由: 障害による一部返金')).toBeVisible();
  const pdfButton = notes.getByRole('button', { name: /^返還請求書PDF CN-\d{6}-\d{6}$/ });
  await expect(pdfButton).toBeVisible();
  const download = page.waitForEvent('download');
  await pdfButton.click();
  expect((await download).suggestedFilename()).toMatch(/^CN-\d{6}-\d{6}\.pdf$/);
  await scanAndShoot(page, 'invoice-detail-credit-note');
});
