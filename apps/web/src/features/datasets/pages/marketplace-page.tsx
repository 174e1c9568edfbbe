import { useState } from 'react';
import { Plus } from 'lucide-react';
import { isPlatformAdmin } from '@poi/shared/roles';
import { Button } from '../../../components/ui/button';
import { PageHeader } from '../../../components/ui/page-header';
import { useAuth } from '../../../lib/auth-store';
import { CreateDatasetModal } from '../components/lazy-create-dataset-modal';
import { DatasetBrowser } from '../components/dataset-browser';

/** /marketplace: every public dataset; the create button for platform admins only. */
export function MarketplacePage() {
  const { user } = useAuth();
  const [creating, setCreating] = useState(false);
  const canCreate = isPlatformAdmin(user);
  const createButton = canCreate ? (
    <Button onClick={() => setCreating(true)}>
      <Plus className="h-4 w-4" aria-hidden="true" />
      公開データセットを作成
    </Button>
  ) : null;

  return (
    <div>
      <PageHeader title="公開データセット" description="検索APIで利用できるPOIデータセットです。カードをクリックするとデータセットIDをコピーできます。" actions={createButton} />
      <DatasetBrowser emptyMessage="該当するデータセットはありません" emptyAction={createButton} />
      {creating ? <CreateDatasetModal asPlatformAdmin onClose={() => setCreating(false)} /> : null}
    </div>
  );
}
