import { Navigate, Outlet, type RouteObject } from 'react-router';
import { GuestOnly, RequireAdmin, RequireAuth, RequireRevenueAccess } from './guards';
import { lazyScreen } from './lazy-screen';
import { Titled } from './titled';

// Each screen is its own chunk: the sign-in page does not carry the console, Leaflet loads on map
// screens only and the API reference renderer on /docs/api only (budgets: bench/bundle-budget.ts).
const LandingPage = lazyScreen(() => import('../features/landing/pages/landing-page').then((m) => m.LandingPage));
const LoginPage = lazyScreen(() => import('../features/auth/pages/login-page').then((m) => m.LoginPage));
const VerifyOtpPage = lazyScreen(() => import('../features/auth/pages/verify-otp-page').then((m) => m.VerifyOtpPage));
const MagicLinkPage = lazyScreen(() => import('../features/auth/pages/magic-link-page').then((m) => m.MagicLinkPage));
const DocsPage = lazyScreen(async () => {
  const [{ DocsPage: Page }, { withQueryClient }] = await Promise.all([import('../features/docs/pages/docs-page'), import('./query-provider')]);
  return withQueryClient(Page);
});
// The shell (top bar, side menu) and the query cache load with the first signed-in screen.
const ConsoleShell = lazyScreen(async () => {
  const [{ AppShell }, { withQueryClient }] = await Promise.all([import('./shell/app-shell'), import('./query-provider')]);
  return withQueryClient(AppShell);
});
const CommercePage = lazyScreen(async () => {
  const [{ CommercePage: Page }, { withQueryClient }] = await Promise.all([import('../features/landing/pages/commerce-page'), import('./query-provider')]);
  return withQueryClient(Page);
});
const DashboardPage = lazyScreen(() => import('./pages/dashboard-page').then((m) => m.DashboardPage));
const ApiKeysPage = lazyScreen(() => import('./pages/api-keys-page').then((m) => m.ApiKeysPage));
const UsagePage = lazyScreen(() => import('../features/usage/pages/usage-page').then((m) => m.UsagePage));
const DatasetsPage = lazyScreen(() => import('../features/datasets/pages/datasets-page').then((m) => m.DatasetsPage));
const PoiManagementPage = lazyScreen(() => import('./pages/poi-management-page').then((m) => m.PoiManagementPage));
const MarketplacePage = lazyScreen(() => import('../features/datasets/pages/marketplace-page').then((m) => m.MarketplacePage));
const DatasetDetailPage = lazyScreen(() => import('./pages/dataset-detail-page').then((m) => m.DatasetDetailPage));
const ProfilePage = lazyScreen(() => import('../features/profile/pages/profile-page').then((m) => m.ProfilePage));
const BillingPage = lazyScreen(() => import('./pages/billing-page').then((m) => m.BillingPage));
const InvoiceDetailPage = lazyScreen(() => import('../features/invoices/pages/invoice-detail-page').then((m) => m.InvoiceDetailPage));
const UpgradePage = lazyScreen(() => import('../features/corporate/pages/upgrade-page').then((m) => m.UpgradePage));
const PaymentMethodPage = lazyScreen(() => import('../features/payments/pages/payment-method-page').then((m) => m.PaymentMethodPage));
const PaymentCompletePage = lazyScreen(() => import('../features/payments/pages/payment-complete-page').then((m) => m.PaymentCompletePage));
const RevenuePage = lazyScreen(() => import('../features/revenue/pages/revenue-page').then((m) => m.RevenuePage));
const AdminDashboardPage = lazyScreen(() => import('../features/revenue/pages/admin-dashboard-page').then((m) => m.AdminDashboardPage));
const AdminUsersPage = lazyScreen(() => import('../features/users/pages/admin-users-page').then((m) => m.AdminUsersPage));
const AdminCorporatePage = lazyScreen(() => import('../features/corporate/pages/admin-corporate-page').then((m) => m.AdminCorporatePage));
const AdminTransfersPage = lazyScreen(() => import('../features/transfers/pages/admin-transfers-page').then((m) => m.AdminTransfersPage));
const AdminPricingPage = lazyScreen(() => import('../features/pricing/pages/admin-pricing-page').then((m) => m.AdminPricingPage));
const AdminRevenuePage = lazyScreen(() => import('../features/revenue/pages/admin-revenue-page').then((m) => m.AdminRevenuePage));

/** Every route of the console specification's route table, with its guard and Japanese title. */
export const routes: RouteObject[] = [
  { path: '/', element: <LandingPage /> },
  {
    element: (
      <GuestOnly>
        <Outlet />
      </GuestOnly>
    ),
    children: [
      { path: '/auth/login', element: <LoginPage /> },
      { path: '/auth/verify-otp', element: <VerifyOtpPage /> },
    ],
  },
  // The magic-link page handles a signed-in visitor itself: it says so, then goes to the dashboard.
  { path: '/auth/magic/:token', element: <MagicLinkPage /> },
  { path: '/docs/api', element: <DocsPage /> },
  { path: '/commerce', element: <CommercePage /> },
  {
    element: (
      <RequireAuth>
        <ConsoleShell />
      </RequireAuth>
    ),
    children: [
      { path: '/dashboard', element: <Titled title="ダッシュボード"><DashboardPage /></Titled> },
      { path: '/api-keys', element: <Titled title="APIキー管理"><ApiKeysPage /></Titled> },
      { path: '/usage', element: <Titled title="使用量"><UsagePage /></Titled> },
      { path: '/datasets', element: <Titled title="POIデータセット管理"><DatasetsPage /></Titled> },
      { path: '/poi', element: <Titled title="POI管理"><PoiManagementPage /></Titled> },
      { path: '/marketplace', element: <Titled title="公開データセット"><MarketplacePage /></Titled> },
      { path: '/marketplace/:datasetId', element: <Titled title="データセット詳細"><DatasetDetailPage /></Titled> },
      { path: '/billing', element: <Titled title="請求・お支払い"><BillingPage /></Titled> },
      { path: '/billing/invoices/:id', element: <Titled title="請求書"><InvoiceDetailPage /></Titled> },
      { path: '/profile', element: <Titled title="プロフィール"><ProfilePage /></Titled> },
      { path: '/upgrade', element: <Titled title="アカウントアップグレード"><UpgradePage /></Titled> },
      { path: '/payment-method', element: <Titled title="お支払い方法"><PaymentMethodPage /></Titled> },
      // Its title follows the outcome (完了, or could not be completed): set by the page.
      { path: '/payment-method/complete', element: <PaymentCompletePage /> },
      {
        path: '/revenue',
        element: (
          <RequireRevenueAccess>
            <Titled title="収益レポート">
              <RevenuePage />
            </Titled>
          </RequireRevenueAccess>
        ),
      },
      {
        path: '/admin',
        element: (
          <RequireAdmin>
            <Outlet />
          </RequireAdmin>
        ),
        children: [
          { path: 'dashboard', element: <Titled title="管理ダッシュボード"><AdminDashboardPage /></Titled> },
          { path: 'users', element: <Titled title="ユーザー管理"><AdminUsersPage /></Titled> },
          { path: 'corporate', element: <Titled title="法人アカウント管理"><AdminCorporatePage /></Titled> },
          { path: 'transfers', element: <Titled title="振込確認"><AdminTransfersPage /></Titled> },
          { path: 'pricing', element: <Titled title="料金設定"><AdminPricingPage /></Titled> },
          { path: 'revenue', element: <Titled title="収益集計"><AdminRevenuePage /></Titled> },
        ],
      },
    ],
  },
  { path: '*', element: <Navigate to="/dashboard" replace /> },
];
