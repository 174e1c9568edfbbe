import { Link } from 'react-router';
import { MapPin } from 'lucide-react';
import { ComingSoon } from '../../../components/ui/coming-soon';
import { usePageTitle } from '../../../lib/use-page-title';

/** /docs/api: public, without top bar and side menu. The generated reference comes with the API-key issue. */
export function DocsPage() {
  usePageTitle('APIドキュメント');
  return (
    <div className="min-h-screen bg-white">
      <header className="border-b border-gray-200">
        <div className="mx-auto flex max-w-5xl items-center px-4 py-4">
          <Link to="/" className="flex items-center gap-2 text-lg font-bold text-blue-800">
            <MapPin className="h-5 w-5" aria-hidden="true" />
            POI Cloud
          </Link>
        </div>
      </header>
      <main className="mx-auto max-w-5xl px-4 py-10">
        <ComingSoon title="APIドキュメント" description="公開検索API(/api/v1/poi/search)のリファレンスです。" />
        <p className="mt-4 text-sm text-gray-700">
          OpenAPI 形式の定義は{' '}
          <a className="text-blue-800 underline" href="/openapi.json">
            /openapi.json
          </a>{' '}
          から取得できます。
        </p>
      </main>
    </div>
  );
}
