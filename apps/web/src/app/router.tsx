import { Navigate, Outlet, createBrowserRouter, type RouteObject } from 'react-router';
import { LoginPage } from '../features/auth/pages/login-page';
import { MagicLinkPage } from '../features/auth/pages/magic-link-page';
import { VerifyOtpPage } from '../features/auth/pages/verify-otp-page';
import { DashboardPage } from '../features/dashboard/pages/dashboard-page';
import { DatasetsPage } from '../features/datasets/pages/datasets-page';
import { MarketplacePage } from '../features/datasets/pages/marketplace-page';
import { DatasetDetailPage } from '../pages/dataset-detail-page';
import { PoiManagementPage } from '../pages/poi-management-page';
import { CommercePage } from '../features/landing/pages/commerce-page';
import { DocsPage } from '../features/docs/pages/docs-page';
import { ApiKeysPage } from '../features/api-keys/pages/api-keys-page';
import { RevenuePage } from '../features/revenue/pages/revenue-page';
import { UsagePage } from '../features/usage/pages/usage-page';
import { LandingPage } from '../features/landing/pages/landing-page';
import { ProfilePage } from '../features/profile/pages/profile-page';
import { GuestOnly, RequireAdmin, RequireAuth, RequireRevenueAccess } from './guards';
import { AppShell } from './shell/app-shell';
import { PendingPage, Titled } from './titled';

/** Every route of the spec's table (section 2), with its guard and Japanese title. */
export const routes: RouteObject[] = [
  { path: '/', element: <LandingPage /> },
  { path: '/auth/login', element: <GuestOnly><LoginPage /></GuestOnly> },
  { path: '/auth/verify-otp', element: <GuestOnly><VerifyOtpPage /></GuestOnly> },
  // The magic-link page handles a signed-in visitor itself: it says so, then goes to the dashboard.
  { path: '/auth/magic/:token', element: <MagicLinkPage /> },
  { path: '/docs/api', element: <DocsPage /> },
  { path: '/commerce', element: <CommercePage /> },
  {
    element: (
      <RequireAuth>
        <AppShell />
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
      { path: '/billing', element: <PendingPage title="請求・お支払い" /> },
      { path: '/profile', element: <Titled title="プロフィール"><ProfilePage /></Titled> },
      { path: '/upgrade', element: <PendingPage title="アカウントアップグレード" /> },
      { path: '/payment-method', element: <PendingPage title="お支払い方法" /> },
      { path: '/payment-method/complete', element: <PendingPage title="カード登録完了" /> },
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
          { path: 'dashboard', element: <PendingPage title="管理ダッシュボード" /> },
          { path: 'users', element: <PendingPage title="ユーザー管理" /> },
          { path: 'corporate', element: <PendingPage title="法人アカウント管理" /> },
          { path: 'transfers', element: <PendingPage title="振込確認" /> },
          { path: 'pricing', element: <PendingPage title="料金設定" /> },
          { path: 'revenue', element: <PendingPage title="収益集計" /> },
        ],
      },
    ],
  },
  { path: '*', element: <Navigate to="/dashboard" replace /> },
];

export const createAppRouter = () => createBrowserRouter(routes);
