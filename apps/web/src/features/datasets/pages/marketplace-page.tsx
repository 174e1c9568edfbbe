import { useState } from 'react';
import { Plus } from 'lucide-react';
import { isPlatformAdmin } from '@poi/shared/roles';
import type { DatasetFilter } from '@poi/shared/schemas/dataset';
import { Button } from '../../../components/ui/button';
import { PageHeader } from '../../../components/ui/page-header';
import { useAuth } from '../../../lib/auth-store';
import { useDatasets } from '../api/datasets-api';
import { CreateDatasetModal } from '../components/lazy-create-dataset-modal';
import { DatasetFilterRadios } from '../components/dataset-filter';
import { DatasetGrid } from '../components/dataset-grid';

/** /marketplace: every public dataset; the create button for platform admins only (spec 6). */
export function MarketplacePage() {
  const { user } = useAuth();
  const [type, setType] = useState<DatasetFilter>('all');
  const [creating, setCreating] = useState(false);
  const query = useDatasets({ type });
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
      <DatasetFilterRadios value={type} onChange={setType} />
      <DatasetGrid query={query} emptyMessage="該当するデータセットはありません" emptyAction={createButton} />
      {creating ? <CreateDatasetModal asPlatformAdmin onClose={() => setCreating(false)} /> : null}
    </div>
  );
}
