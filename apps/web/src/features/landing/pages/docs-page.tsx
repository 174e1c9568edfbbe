import { PublicPage } from '../components/public-page';
import { ComingSoon } from '../../../components/ui/coming-soon';
import { usePageTitle } from '../../../lib/use-page-title';

/** /docs/api: public, without top bar and side menu. The generated reference comes with the API-key issue. */
export function DocsPage() {
  usePageTitle('APIドキュメント');
  return (
    <PublicPage>
      <ComingSoon title="APIドキュメント" description="公開検索API(/api/v1/poi/search)のリファレンスです。" />
      <p className="mt-4 text-sm text-gray-700">
        OpenAPI 形式の定義は{' '}
        <a className="text-blue-800 underline" href="/openapi.json">
          /openapi.json
        </a>{' '}
        から取得できます。
      </p>
    </PublicPage>
  );
}
