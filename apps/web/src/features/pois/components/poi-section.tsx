import { useState, type FormEvent } from 'react';
import { Eye, Plus, Search, Trash2 } from 'lucide-react';
import { formatCoordinate, formatDate } from '@poi/shared/format';
import { POI_SEARCH_DEFAULT_LIMIT } from '@poi/shared/limits';
import { messages } from '@poi/shared/messages';
import type { Poi } from '@poi/shared/schemas/pois';
import { Button } from '../../../components/ui/button';
import { Pagination } from '../../../components/ui/pagination';
import { EmptyBlock, ErrorBlock, LoadingBlock } from '../../../components/ui/state-blocks';
import { getErrorMessage } from '../../../lib/api-client';
import { usePoiList } from '../api/pois-api';
import { PoiMap } from './lazy-poi-map';
import { PoiDeleteDialog } from './poi-delete-dialog';
import { PoiDetailModal } from './poi-detail-modal';
import { PoiFormModal } from './poi-form-modal';
import { PoiCoordinatesTerm, PoiTable } from './poi-table';

/** Header cell padding of the middle columns (the cells' own). */
const TH = 'px-3 py-2';

/**
 * The POI list of the dataset detail screen: register, name search (Enter or button),
 * table, paging, details and delete. Mount with `key={datasetId}` so a new dataset starts afresh.
 */
export function PoiSection({ datasetId, canManage, onChanged }: { datasetId: string; canManage: boolean; onChanged?: () => void }) {
  const [keywordInput, setKeywordInput] = useState('');
  const [keyword, setKeyword] = useState('');
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const [viewing, setViewing] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Poi | null>(null);
  const pageSize = POI_SEARCH_DEFAULT_LIMIT;
  const list = usePoiList({ datasetIds: [datasetId], keyword: keyword || undefined, page, pageSize });

  // A dataset's list is counted exactly (its POI count); a keyword's matches up to 100 ("100件以上").
  const total = list.data?.total ?? 0;
  const capped = list.data?.total_capped ?? false;
  const totalPages = Math.max(1, Math.ceil(total / pageSize));

  const onSearch = (e: FormEvent) => {
    e.preventDefault();
    setKeyword(keywordInput.trim());
    setPage(1);
  };



  const registerButton = canManage ? (
    <Button onClick={() => setCreating(true)}>
      <Plus className="h-4 w-4" aria-hidden="true" />
      POIを登録
    </Button>
  ) : null;

  return (
    <section aria-labelledby="poi-section" className="rounded-lg border border-gray-200 bg-white p-5">
      <div className="mb-4 flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
        <h2 id="poi-section" className="text-lg font-semibold text-gray-900">
          POI一覧
          {/* 「POI一覧(10件)」: the count as the console's other headings show one (「メンバー(3)」), no space. */}
          {list.data ? <span className="text-sm font-normal text-gray-700">({capped ? `${total}件以上` : `${total}件`})</span> : null}
        </h2>
        {registerButton}
      </div>

      {canManage ? (
        <form role="search" onSubmit={onSearch} className="mb-4 flex gap-2">
          <label htmlFor="poi-keyword" className="sr-only">
            POIを名称で検索
          </label>
          <input
            id="poi-keyword"
            type="search"
            value={keywordInput}
            onChange={(e) => setKeywordInput(e.target.value)}
            placeholder="名称・住所・カテゴリ・タグで検索"
            className="min-w-0 flex-1 rounded-md border border-gray-400 px-3 py-2 text-sm focus:border-blue-600 focus:outline-none focus:ring-2 focus:ring-blue-600"
          />
          <Button type="submit" variant="secondary">
            <Search className="h-4 w-4" aria-hidden="true" />
            検索
          </Button>
        </form>
      ) : (
        <p className="mb-4 rounded-md bg-blue-50 p-3 text-sm text-blue-900">
          プレビューとして先頭10件を表示しています。全件の検索は検索APIをご利用ください。
        </p>
      )}

      {list.isPending ? (
        <LoadingBlock />
      ) : list.isError ? (
        <ErrorBlock message={getErrorMessage(list.error, messages.poiSearchFailed)} onRetry={() => void list.refetch()} />
      ) : list.data.pois.length === 0 ? (
        keyword ? (
          <EmptyBlock message="条件に一致するPOIはありません" />
        ) : (
          <EmptyBlock message={messages.noPois}>{registerButton}</EmptyBlock>
        )
      ) : (
        <>
          <PoiTable
            // Not POI一覧: the section around is the region of that name.
            caption="データセットのPOI"
            pois={list.data.pois}
            stale={list.isPlaceholderData}
            className="-mx-5 overflow-x-auto"
            tableClassName="w-full min-w-[44rem] divide-y divide-gray-200 text-sm"
            columns={[
              {
                header: 'POI ID',
                headerClassName: 'px-5 py-2',
                className: 'max-w-[8rem] truncate px-5 py-2 font-mono text-xs text-gray-700',
                // The full id on hover; the cell truncates it.
                cell: (poi) => <span title={poi.poi_id}>{poi.poi_id}</span>,
              },
              { header: '名称', headerClassName: TH, className: 'min-w-[10rem] px-3 py-2 font-medium text-gray-900', cell: (poi) => poi.name },
              { header: '住所', headerClassName: TH, className: 'min-w-[12rem] px-3 py-2 text-gray-800', cell: (poi) => poi.address || '-' },
              { header: '緯度', headerClassName: TH, className: 'px-3 py-2 font-mono text-xs text-gray-800', cell: (poi) => formatCoordinate(poi.latitude) },
              { header: '経度', headerClassName: TH, className: 'px-3 py-2 font-mono text-xs text-gray-800', cell: (poi) => formatCoordinate(poi.longitude) },
              { header: '登録日', headerClassName: TH, className: 'whitespace-nowrap px-3 py-2 text-gray-800', cell: (poi) => formatDate(poi.created_at) },
              {
                header: '操作',
                headerClassName: 'px-5 py-2 text-right',
                className: 'whitespace-nowrap px-5 py-2 text-right',
                cell: (poi) => (
                  <>
                    <button type="button" onClick={() => setViewing(poi.poi_id)} className="inline-flex items-center gap-1 rounded px-2 py-1 text-blue-800 hover:bg-blue-50" aria-label={`${poi.name} の詳細`}>
                      <Eye className="h-4 w-4" aria-hidden="true" />
                      詳細
                    </button>
                    {canManage ? (
                      <button type="button" onClick={() => setDeleting(poi)} className="ml-1 inline-flex items-center gap-1 rounded px-2 py-1 text-red-800 hover:bg-red-50" aria-label={`${poi.name} を削除`}>
                        <Trash2 className="h-4 w-4" aria-hidden="true" />
                        削除
                      </button>
                    ) : null}
                  </>
                ),
              },
            ]}
            // Cards on narrow screens (everything, the buttons included, within the width), the table from md up.
            cards={{
              label: 'POI',
              terms: (poi) => (
                <>
                  <PoiCoordinatesTerm poi={poi} />
                  <dt className="text-gray-700">登録日</dt>
                  <dd className="text-gray-800">{formatDate(poi.created_at)}</dd>
                  <dt className="text-gray-700">POI ID</dt>
                  <dd className="break-all font-mono text-xs leading-5 text-gray-700">{poi.poi_id}</dd>
                </>
              ),
              actions: (poi) => (
                <>
                  <button type="button" onClick={() => setViewing(poi.poi_id)} className="inline-flex min-h-11 items-center gap-1 rounded border border-gray-300 px-3 text-sm text-blue-800 hover:bg-blue-50" aria-label={`${poi.name} の詳細`}>
                    <Eye className="h-4 w-4" aria-hidden="true" />
                    詳細
                  </button>
                  {canManage ? (
                    <button type="button" onClick={() => setDeleting(poi)} className="inline-flex min-h-11 items-center gap-1 rounded border border-gray-300 px-3 text-sm text-red-800 hover:bg-red-50" aria-label={`${poi.name} を削除`}>
                      <Trash2 className="h-4 w-4" aria-hidden="true" />
                      削除
                    </button>
                  ) : null}
                </>
              ),
            }}
          />
          <Pagination page={page} totalPages={totalPages} total={total} capped={capped} hasNext={list.data.next_cursor !== null} onChange={setPage} />
          <div className="mt-4">
            <PoiMap pois={list.data.pois} onSelect={setViewing} label="POI一覧の地図" />
          </div>
        </>
      )}

      {creating ? <PoiFormModal datasetId={datasetId} onClose={() => setCreating(false)} onSaved={() => onChanged?.()} /> : null}
      {viewing ? <PoiDetailModal poiId={viewing} datasetId={datasetId} onClose={() => setViewing(null)} /> : null}
      {deleting ? <PoiDeleteDialog poi={deleting} onDone={() => setDeleting(null)} onDeleted={() => onChanged?.()} /> : null}
    </section>
  );
}
