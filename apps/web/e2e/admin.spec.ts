import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import type { LoginResponse } from '@poi/shared/schemas/auth';
import { expectAxeClean, scanAndShoot } from './support/a11y';
import { signInByApi, uniqueEmail, useSession } from './support/auth';
import { BILLING_ADMIN_EMAIL, hasFaketime, signInAt, startBillingServer, storeSessionAt, type BillingServer } from './support/billing-server';

/*
 * Running the service from the admin screens, in a real browser against a server of its own
 * (issuer and bank configuration, a clock libfaketime moves into the next month): an admin
 * approves a corporate application paid by invoice, creates a pricing version for next month,
 * suspends and reactivates a user, closes the month, confirms a short bank transfer as the
 * transfer fee and reads the dashboard and revenue. Every admin screen is scanned by axe and
 * photographed at 1280 and 390 px. A non-admin is sent to /dashboard from every admin route.
 */

const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const ADMIN_ROUTES = ['/admin/dashboard', '/admin/users', '/admin/corporate', '/admin/transfers', '/admin/pricing', '/admin/revenue'];

test('a non-admin is sent to /dashboard from every admin route', async ({ page, request }) => {
  await useSession(page, await signInByApi(request, uniqueEmail('not-admin')));
  for (const route of ADMIN_ROUTES) {
    await page.goto(route);
    await expect(page, route).toHaveURL(/\/dashboard$/);
  }
});

test.describe('admin flows', () => {
  test.describe.configure({ mode: 'serial' });
  test.skip(!hasFaketime, 'needs libfaketime (Debian package faketime; CI installs it)');
  let server: BillingServer;

  test.beforeAll(async () => {
    server = await startBillingServer(8);
  });
  test.afterAll(async () => {
    await server?.stop();
  });

  const signIn = (request: APIRequestContext, email: string) => signInAt(server, request, email);
  const setSession = (page: Page, login: LoginResponse) => storeSessionAt(page, server, login);

  test('approve an application, price next month, suspend and reactivate, close the month, book a short transfer as the fee, read the dashboard', async ({ page, request }) => {
    test.setTimeout(240_000);
    const base = server.baseUrl;
    const admin = await signIn(request, BILLING_ADMIN_EMAIL);

    // A corporate application paid by invoice, made through the API by a trial user.
    const ownerEmail = uniqueEmail('corp-owner');
    const owner = await signIn(request, ownerEmail);
    const company = `株式会社管理テスト${Date.now().toString(36).slice(-4)}`;
    const applied = await request.post(`${base}/console/v1/upgrade/corporate`, {
      headers: auth(owner.token),
      data: {
        company_name: company,
        company_name_kana: 'カブシキガイシャカンリテスト',
        department: null,
        postal_code: '100-0005',
        address: '東京都千代田区丸の内1-1-1',
        phone: '03-1234-5678',
        billing_contact_name: '経理 花子',
        billing_emails: ['keiri@example.com'],
        corporate_number: null,
        registration_number: null,
        payment_method: 'bank_transfer',
      },
    });
    expect(applied.ok(), await applied.text()).toBe(true);

    // The admin approves it on /admin/corporate (pending filter kept in the URL).
    await useSession(page, admin);
    await page.goto(`${base}/admin/corporate?status=pending`);
    await expect(page.getByRole('heading', { level: 1, name: '法人アカウント管理' })).toBeVisible();
    await page.reload();
    await expect(page.getByLabel('状態')).toHaveValue('pending');
    await page.getByRole('button', { name: new RegExp(company) }).click();
    const detail = page.getByRole('dialog', { name: new RegExp(company) });
    await expect(detail.getByText('審査中').first()).toBeVisible();
    await scanAndShoot(page, 'admin-corporate-detail');
    await detail.getByRole('button', { name: '承認する' }).click();
    const approve = page.getByRole('dialog', { name: 'お申し込みを承認' });
    await approve.getByLabel(/与信限度額/).fill('500000');
    await approve.getByRole('button', { name: '承認する' }).click();
    await expect(approve.getByText('理由を入力してください')).toBeVisible();
    await approve.getByLabel(/理由/).fill('与信審査済み');
    await approve.getByRole('button', { name: '承認する' }).click();
    await expect(page.getByText('お申し込みを承認しました')).toBeVisible();
    await expect(detail.getByText('有効').first()).toBeVisible();
    await expect(detail.getByText('¥500,000')).toBeVisible();
    // Billing data changes for future invoices, with a reason.
    await detail.getByRole('button', { name: '情報を編集' }).click();
    const edit = page.getByRole('dialog', { name: /法人情報の編集/ });
    await edit.getByLabel('請求担当者名').fill('経理 次郎');
    await edit.getByLabel(/理由/).fill('担当者の交代');
    await edit.getByRole('button', { name: '変更を保存' }).click();
    await expect(page.getByText('法人アカウントの情報を変更しました')).toBeVisible();
    await expect(detail.getByText('経理 次郎')).toBeVisible();
    await page.keyboard.press('Escape');
    await page.getByLabel('状態').selectOption('');
    await expect(page.getByRole('button', { name: new RegExp(company) })).toBeVisible();
    await scanAndShoot(page, 'admin-corporate');

    // A pricing version for next month, previewed before it is saved.
    const jst = new Date(Date.now() + 9 * 3600_000);
    const nextMonth = new Date(Date.UTC(jst.getUTCFullYear(), jst.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
    await page.goto(`${base}/admin/pricing`);
    await expect(page.getByRole('heading', { level: 1, name: '料金設定' })).toBeVisible();
    await page.getByRole('button', { name: '新しい料金設定' }).click();
    const form = page.getByRole('dialog', { name: '新しい料金設定' });
    await form.getByLabel('アカウント種別').selectOption('individual');
    await form.getByLabel(/適用開始日/).fill(nextMonth);
    await form.getByLabel(/基本料金/).fill('0.12');
    await form.getByLabel(/月間無料検索数/).fill('2000');
    await form.getByLabel(/月額料金/).fill('0');
    await form.getByLabel(/分配率/).fill('70');
    await form.getByLabel(/レート制限/).fill('600');
    await form.getByLabel(/APIキーの上限/).fill('10');
    await form.getByLabel(/理由/).fill('来月からの価格改定');
    await form.getByRole('button', { name: '変更内容を確認する' }).click();
    await expect(form.getByText('変更内容の確認')).toBeVisible();
    await expect(form.getByText(/基本料金\(円\/検索\): 0\.1 → 0\.12/)).toBeVisible();
    await expect(form.getByText(/月間無料検索数: 1,000 → 2,000/)).toBeVisible();
    await form.getByRole('button', { name: 'この内容で保存する' }).click();
    await expect(page.getByText('料金設定を作成しました')).toBeVisible();
    await expect(page.getByRole('row').filter({ hasText: '(予定)' }).filter({ hasText: '個人' })).toHaveCount(1);
    await scanAndShoot(page, 'admin-pricing');

    // Suspend and reactivate a user from /admin/users (search kept in the URL).
    const victimEmail = uniqueEmail('suspend-me');
    const victim = await signIn(request, victimEmail);
    await page.goto(`${base}/admin/users`);
    await page.getByRole('searchbox', { name: /メールアドレス/ }).fill(victimEmail);
    await page.getByRole('button', { name: '検索' }).click();
    await expect(page).toHaveURL(/q=/);
    await page.reload();
    await page.getByRole('button', { name: new RegExp(victimEmail) }).click();
    const user = page.getByRole('dialog', { name: /ユーザー詳細/ });
    await user.getByRole('button', { name: '停止する' }).click();
    const suspend = page.getByRole('dialog', { name: 'ユーザーを停止' });
    await suspend.getByLabel(/理由/).fill('規約違反の確認のため');
    await suspend.getByRole('button', { name: '停止する' }).click();
    await expect(page.getByText('ユーザーを停止しました')).toBeVisible();
    await expect(user.getByText('停止中(規約違反の確認のため)')).toBeVisible();
    expect((await request.get(`${base}/console/v1/user`, { headers: auth(victim.token) })).status()).toBe(401);
    await user.getByRole('button', { name: '再開する' }).click();
    const activate = page.getByRole('dialog', { name: 'ユーザーを再開' });
    await activate.getByLabel(/理由/).fill('確認が取れたため');
    await activate.getByRole('button', { name: '再開する' }).click();
    await expect(page.getByText('ユーザーを再開しました')).toBeVisible();
    await expect(user.getByText('操作履歴')).toBeVisible();
    await expect(user.getByText('ユーザー停止')).toBeVisible();
    await page.keyboard.press('Escape');
    await page.goto(`${base}/admin/users`);
    await scanAndShoot(page, 'admin-users');

    // The company searches a paid dataset this month.
    const created = await request.post(`${base}/console/v1/admin/datasets/assign`, {
      headers: auth(admin.token),
      data: { name: '法人向け店舗データ', price_per_search: 100, assigned_user_id: null, provider_user_id: null },
    });
    const datasetId = (await created.json()).data.dataset_id as string;
    // The owner's session goes on across the approval (the account type is read per request).
    const ownerNow = owner;
    const key = (await (await request.post(`${base}/console/v1/api-keys`, { headers: auth(ownerNow.token), data: { name: '本番' } })).json()).data.key as string;
    for (let i = 0; i < 30; i++) expect((await request.get(`${base}/api/v1/poi/search?dataset_id=${datasetId}`, { headers: { 'x-api-key': key } })).status()).toBe(200);
    const month = jst.toISOString().slice(0, 7);
    await expect
      .poll(async () => (await (await request.get(`${base}/console/v1/billing/current`, { headers: auth(ownerNow.token) })).json()).data.subtotal, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(3000);

    // Next month: the admin closes the month; the company's bank-transfer invoice waits.
    const target = Date.UTC(jst.getUTCFullYear(), jst.getUTCMonth() + 1, 2, 3);
    await server.setClockOffsetDays(Math.ceil((target - Date.now()) / 86_400_000));
    const admin2 = await signIn(request, BILLING_ADMIN_EMAIL);
    // The close refuses the month until the server's clock is past it.
    await expect
      .poll(async () => (await request.post(`${base}/console/v1/admin/billing/close`, { headers: auth(admin2.token), data: { year_month: month } })).status(), { timeout: 20_000 })
      .toBe(200);
    await setSession(page, admin2);

    await page.goto(`${base}/admin/transfers`);
    await expect(page.getByRole('heading', { level: 1, name: '振込確認' })).toBeVisible();
    const row = page.getByRole('row').filter({ hasText: company });
    await expect(row).toHaveCount(1);
    await scanAndShoot(page, 'admin-transfers');
    // The bank's statement: the お客様番号 typed before the name, ¥440 short (the transfer fee).
    const customerNumber = (await row.getByRole('cell').nth(2).innerText()).trim();
    const remaining = Number((await row.getByRole('cell').nth(5).innerText()).replace(/[^\d]/g, ''));
    expect(remaining).toBeGreaterThan(3000);
    const statement = `日付,金額,振込依頼人名\r\n2026/12/01,${remaining - 440},${customerNumber} カ)カンリテスト\r\n2026/12/01,123,タナカ イチロウ\r\n`;
    await page.getByLabel('入金明細CSVを選ぶ').setInputFiles({ name: 'statement.csv', mimeType: 'text/csv', buffer: Buffer.from(statement) });
    const proposals = page.getByRole('table', { name: '入金明細の消し込み候補' });
    await expect(proposals.getByText('お客様番号が一致(金額が異なる)')).toBeVisible();
    await expect(proposals.getByText('候補なし')).toBeVisible();
    await scanAndShoot(page, 'admin-transfers-statement');
    await proposals.getByRole('button', { name: /2行目を POI-/ }).click();
    const confirm = page.getByRole('dialog', { name: /入金の確認/ });
    await expect(confirm.getByLabel(/入金額/)).toHaveValue(String(remaining - 440));
    await expect(confirm.getByLabel(/振込名義/)).toHaveValue(`${customerNumber} カ)カンリテスト`);
    await expect(confirm.getByText('¥440 不足しています(¥1,000以下)。')).toBeVisible();
    await confirm.getByLabel(/振込手数料として処理/).check();
    await expectAxeClean(page, '/admin/transfers confirm dialog');
    await confirm.getByRole('button', { name: '入金を記録する' }).click();
    await expect(page.getByText(/の入金を記録しました/)).toBeVisible();
    await expect(page.getByRole('row').filter({ hasText: company })).toHaveCount(0);

    // The dashboard and revenue show the month just billed.
    await page.goto(`${base}/admin/dashboard`);
    await expect(page.getByRole('heading', { level: 1, name: '管理ダッシュボード' })).toBeVisible();
    await expect(page.getByTestId('dash-billed')).not.toHaveText('¥0');
    await expect(page.getByText('最近の操作')).toBeVisible();
    await page.getByText('数値を表で見る').click();
    await expect(page.getByRole('table', { name: '月別の請求額(税抜)' })).toBeVisible();
    await scanAndShoot(page, 'admin-dashboard');
    await page.goto(`${base}/admin/revenue?year_month=${month}`);
    await expect(page.getByRole('heading', { level: 1, name: '収益集計' })).toBeVisible();
    await expect(page.getByLabel('対象月')).toHaveValue(month);
    await expect(page.getByRole('cell', { name: '法人向け店舗データ' })).toBeVisible();
    await scanAndShoot(page, 'admin-revenue');
  });
});
