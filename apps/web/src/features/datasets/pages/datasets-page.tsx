import { useState } from 'react';
import { Link } from 'react-router';
import { Plus } from 'lucide-react';
import { isAdmin, isDataProvider, isPlatformAdmin } from '@poi/shared/roles';
import { Button } from '../../../components/ui/button';
import { PageHeader } from '../../../components/ui/page-header';
import { useAuth } from '../../../lib/auth-store';
import { CreateDatasetModal } from '../components/lazy-create-dataset-modal';
import { DatasetBrowser } from '../components/dataset-browser';

/** /datasets: the datasets the user manages; data providers and platform admins may create. */
export function DatasetsPage() {
  const { user } = useAuth();
  const [creating, setCreating] = useState(false);
  const platformAdmin = isPlatformAdmin(user) || isAdmin(user);
  const canCreate = platformAdmin || isDataProvider(user);

  if (!canCreate) {
    return (
      <div>
        <PageHeader title="POIデータセット管理" />
        <div className="rounded-lg border border-gray-200 bg-white p-6 text-gray-800">
          <p>POIデータセットの作成と管理は、データプロバイダーとプラットフォーム管理者のアカウントでご利用いただけます。</p>
          <p className="mt-2 text-sm text-gray-700">公開されているデータセットは公開データセットの一覧から確認し、検索APIで利用できます。</p>
          <Link to="/marketplace" className="mt-4 inline-flex rounded-md bg-blue-700 px-4 py-2 text-sm font-medium text-white hover:bg-blue-800">
            公開データセットを見る
          </Link>
        </div>
      </div>
    );
  }

  const createButton = (
    <Button onClick={() => setCreating(true)}>
      <Plus className="h-4 w-4" aria-hidden="true" />
      データセットを作成
    </Button>
  );
  return (
    <div>
      <PageHeader title="POIデータセット管理" description="管理しているPOIデータセットです。詳細画面でPOIの登録・価格変更・削除ができます。" actions={createButton} />
      <DatasetBrowser managed emptyMessage="管理しているデータセットはまだありません" emptyAction={createButton} />
      {creating ? <CreateDatasetModal asPlatformAdmin={platformAdmin} onClose={() => setCreating(false)} /> : null}
    </div>
  );
}
