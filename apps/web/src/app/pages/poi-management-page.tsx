import { useMemo, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { toast } from 'react-toastify';
import { ArrowRightLeft, Eye, Pencil, Search, Trash2 } from 'lucide-react';
import { POI_SEARCH_DEFAULT_LIMIT } from '@poi/shared/limits';
import { messages } from '@poi/shared/messages';
import type { Dataset } from '@poi/shared/schemas/datasets';
import { poiSearchQuerySchema, SEARCH_RADIUS_MAX, type Poi } from '@poi/shared/schemas/pois';
import { Button } from '../../components/ui/button';
import { FormField, inputClass } from '../../components/ui/form-field';
import { Modal } from '../../components/ui/modal';
import { PageHeader } from '../../components/ui/page-header';
import { Pagination } from '../../components/ui/pagination';
import { EmptyBlock, ErrorBlock, LoadingBlock } from '../../components/ui/state-blocks';
import { useDatasets } from '../../features/datasets/api/datasets-api';
import { datasetKeys } from '../../features/datasets/api/keys';
import { DatasetPicker } from '../../features/datasets/components/dataset-picker';
import type { PoiListFilters } from '../../features/pois/api/keys';
import { useMovePoi, usePoiList } from '../../features/pois/api/pois-api';
import { PoiMap } from '../../features/pois/components/lazy-poi-map';
import { PoiDeleteDialog } from '../../features/pois/components/poi-delete-dialog';
import { PoiDetailModal } from '../../features/pois/components/poi-detail-modal';
import { PoiFormModal } from '../../features/pois/components/poi-form-modal';
import { PoiCoordinates, PoiCoordinatesTerm, PoiTable } from '../../features/pois/components/poi-table';
import { getErrorMessage } from '../../lib/api-client';

const PAGE_SIZE = POI_SEARCH_DEFAULT_LIMIT;

export const formatDistance = (m: number | undefined): string =>
  m === undefined ? '-' : m < 1000 ? `${Math.round(m)} m` : `${(m / 1000).toFixed(2)} km`;

interface Criteria {
  datasetIds: string[];
  keyword?: string;
  point?: { latitude: number; longitude: number; radius?: number };
}

/** /poi: search, edit, move and delete the POIs of the datasets the user manages. */
export function PoiManagementPage() {
  const datasets = useDatasets({ type: 'all', managed: true });
  const managed = useMemo(() => datasets.data?.datasets ?? [], [datasets.data]);
  // null: every managed dataset (the first 10); otherwise the one picked (DatasetPicker).
  const [datasetChoice, setDatasetChoice] = useState<Dataset | null>(null);
  const nameOf = (id: string) => managed.find((d) => d.dataset_id === id)?.name ?? (datasetChoice?.dataset_id === id ? datasetChoice.name : id);
  const [keyword, setKeyword] = useState('');
  const [lat, setLat] = useState('');
  const [lon, setLon] = useState('');
  const [radius, setRadius] = useState('1000');
  const [formError, setFormError] = useState<string | null>(null);
  const [criteria, setCriteria] = useState<Criteria | null>(null);
  const [page, setPage] = useState(1);
  const [viewing, setViewing] = useState<Poi | null>(null);
  const [editing, setEditing] = useState<Poi | null>(null);
  const [moving, setMoving] = useState<Poi | null>(null);
  const [moveTarget, setMoveTarget] = useState<Dataset | null>(null);
  const [deleting, setDeleting] = useState<Poi | null>(null);

  const filters: PoiListFilters = { datasetIds: criteria?.datasetIds ?? [], keyword: criteria?.keyword, point: criteria?.point, page, pageSize: PAGE_SIZE };
  const list = usePoiList(filters, !!criteria && filters.datasetIds.length > 0);
  const move = useMovePoi();
  const client = useQueryClient();
  /** The dataset choices show POI counts: a move or delete changes two or one of them. */
  const refreshCounts = () => void client.invalidateQueries({ queryKey: datasetKeys.all });

  const onSearch = (e: FormEvent) => {
    e.preventDefault();
    const ids = datasetChoice === null ? managed.slice(0, 10).map((d) => d.dataset_id) : [datasetChoice.dataset_id];
    const hasPoint = lat.trim() !== '' || lon.trim() !== '';
    // Blank form fields are left out (the API refuses an empty value): a blank keyword is no keyword.
    const parsed = poiSearchQuerySchema.safeParse({
      dataset_id: ids,
      ...(keyword.trim() ? { keyword } : {}),
      ...(hasPoint
        ? { ...(lat.trim() ? { latitude: lat } : {}), ...(lon.trim() ? { longitude: lon } : {}), ...(radius.trim() ? { radius } : {}) }
        : {}),
    });
    if (!parsed.success) {
      setFormError(parsed.error.issues[0]?.message ?? messages.poiSearchFailed);
      return;
    }
    setFormError(null);
    const q = parsed.data;
    setCriteria({
      datasetIds: q.dataset_id,
      keyword: q.keyword,
      point: q.latitude !== undefined && q.longitude !== undefined ? { latitude: q.latitude, longitude: q.longitude, radius: q.radius } : undefined,
    });
    setPage(1);
  };

  const onMove = async () => {
    if (!moving || !moveTarget) return;
    try {
      await move.mutateAsync({ poiId: moving.poi_id, targetDatasetId: moveTarget.dataset_id });
      refreshCounts();
      toast.success(messages.poiMoved);
      setMoving(null);
    } catch (error) {
      toast.error(getErrorMessage(error, messages.poiMoveFailed));
    }
  };



  /** 詳細・編集・移動・削除 of one POI, as table-row buttons or larger card buttons. */
  const actionsOf = (poi: Poi, look: 'row' | 'card') => {
    const base = look === 'card' ? 'inline-flex min-h-11 items-center gap-1 rounded border border-gray-300 px-3 text-sm' : 'inline-flex items-center gap-1 rounded px-2 py-1';
    return (
      <>
        <button type="button" onClick={() => setViewing(poi)} aria-label={`${poi.name} の詳細`} className={`${base} text-blue-800 hover:bg-blue-50`}>
          <Eye className="h-4 w-4" aria-hidden="true" />
          詳細
        </button>
        <button type="button" onClick={() => setEditing(poi)} aria-label={`${poi.name} を編集`} className={`${base} text-gray-800 hover:bg-gray-100`}>
          <Pencil className="h-4 w-4" aria-hidden="true" />
          編集
        </button>
        <button
          type="button"
          onClick={() => {
            setMoving(poi);
            setMoveTarget(null);
          }}
          aria-label={`${poi.name} を移動`}
          className={`${base} text-gray-800 hover:bg-gray-100`}
        >
          <ArrowRightLeft className="h-4 w-4" aria-hidden="true" />
          移動
        </button>
        <button type="button" onClick={() => setDeleting(poi)} aria-label={`${poi.name} を削除`} className={`${base} text-red-800 hover:bg-red-50`}>
          <Trash2 className="h-4 w-4" aria-hidden="true" />
          削除
        </button>
      </>
    );
  };

  if (datasets.isPending) return <LoadingBlock />;
  if (datasets.isError) return <ErrorBlock message={getErrorMessage(datasets.error, messages.datasetListFailed)} onRetry={() => void datasets.refetch()} />;
  if (managed.length === 0) {
    return (
      <div>
        <PageHeader title="POI管理" />
        <EmptyBlock message="管理しているデータセットがありません">
          <Link to="/datasets" className="rounded-md bg-blue-700 px-4 py-2 text-sm font-medium text-white hover:bg-blue-800">
            POIデータセット管理へ
          </Link>
        </EmptyBlock>
      </div>
    );
  }

  const total = list.data?.total ?? 0;
  const capped = list.data?.total_capped ?? false;
  const totalPages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  return (
    <div>
      <PageHeader title="POI管理" description="管理しているデータセットのPOIを、キーワードや地点からの距離で検索して編集・移動・削除できます。" />
      <form role="search" onSubmit={onSearch} noValidate className="grid gap-4 rounded-lg border border-gray-200 bg-white p-5 lg:grid-cols-2">
        <div className="space-y-4">
          <FormField id="poi-dataset" label="データセット">
            <DatasetPicker
              id="poi-dataset"
              managed
              value={datasetChoice}
              onChange={setDatasetChoice}
              noneLabel={`管理しているすべてのデータセット${managed.length > 10 ? '(先頭10件)' : ''}`}
              describe={(d) => `${d.poi_count.toLocaleString('ja-JP')}件`}
            />
          </FormField>
          <FormField id="poi-search-keyword" label="キーワード" hint="名称・住所・カテゴリ・タグを検索します(全角・半角、ひらがな・カタカナ、記号は区別しません。名称は読みでも探せます)">
            <input id="poi-search-keyword" type="search" value={keyword} onChange={(e) => setKeyword(e.target.value)} className={inputClass} />
          </FormField>
          <div className="grid grid-cols-3 gap-2">
            <FormField id="poi-search-lat" label="緯度">
              <input id="poi-search-lat" inputMode="decimal" value={lat} onChange={(e) => setLat(e.target.value)} placeholder="35.681236" className={inputClass} />
            </FormField>
            <FormField id="poi-search-lon" label="経度">
              <input id="poi-search-lon" inputMode="decimal" value={lon} onChange={(e) => setLon(e.target.value)} placeholder="139.767125" className={inputClass} />
            </FormField>
            <FormField id="poi-search-radius" label="半径(m)">
              <input id="poi-search-radius" inputMode="numeric" value={radius} onChange={(e) => setRadius(e.target.value)} max={SEARCH_RADIUS_MAX} className={inputClass} />
            </FormField>
          </div>
          <div className="flex flex-wrap items-center gap-2">
            <Button type="submit">
              <Search className="h-4 w-4" aria-hidden="true" />
              検索
            </Button>
            {lat || lon ? (
              <Button
                variant="ghost"
                onClick={() => {
                  setLat('');
                  setLon('');
                }}
              >
                地点をクリア
              </Button>
            ) : null}
          </div>
          {formError ? (
            <p role="alert" className="rounded-md bg-red-50 p-3 text-sm text-red-800">
              {formError}
            </p>
          ) : null}
        </div>
        <div>
          <p className="mb-1 text-xs text-gray-700">地図をクリックすると検索の中心地点を設定できます</p>
          <PoiMap
            height="h-80"
            label="検索結果の地図"
            pois={list.data?.pois ?? []}
            center={criteria?.point ?? (lat && lon && Number.isFinite(Number(lat)) && Number.isFinite(Number(lon)) ? { latitude: Number(lat), longitude: Number(lon) } : undefined)}
            radius={criteria?.point?.radius}
            onSelect={(id) => setViewing(list.data?.pois.find((p) => p.poi_id === id) ?? null)}
            onPick={(la, lo) => {
              setLat(String(la));
              setLon(String(lo));
            }}
          />
        </div>
      </form>

      <section aria-labelledby="poi-results" className="mt-6 rounded-lg border border-gray-200 bg-white p-5">
        <h2 id="poi-results" className="mb-4 text-lg font-semibold text-gray-900">
          検索結果
          {/* 「POI一覧(10件)」: the count as the console's other headings show one (「メンバー(3)」), no space. */}
          {list.data ? <span className="text-sm font-normal text-gray-700">({capped ? `${total}件以上` : `${total}件`})</span> : null}
        </h2>
        {!criteria ? (
          <p className="text-sm text-gray-700">条件を指定して検索してください。</p>
        ) : list.isPending ? (
          <LoadingBlock />
        ) : list.isError ? (
          <ErrorBlock message={getErrorMessage(list.error, messages.poiSearchFailed)} onRetry={() => void list.refetch()} />
        ) : list.data.pois.length === 0 ? (
          <EmptyBlock message="条件に一致するPOIはありません" />
        ) : (
          <>
            <PoiTable
              // Not 検索結果: the section around is the region of that name.
              caption="POIの一覧"
              pois={list.data.pois}
              stale={list.isPlaceholderData}
              className="-mx-5"
              // Fixed layout: the widths of the header cells share the width out, so no column squeezes another.
              tableClassName="w-full table-fixed divide-y divide-gray-200 text-sm"
              columns={[
                { header: '名称', headerClassName: 'w-[22%] px-5 py-2', className: 'break-words px-5 py-2 font-medium text-gray-900', cell: (poi) => poi.name },
                {
                  header: '住所・緯度経度',
                  headerClassName: 'w-[24%] px-3 py-2',
                  className: 'break-words px-3 py-2 text-gray-800',
                  cell: (poi) => (
                    <>
                      {poi.address || '-'}
                      <span className="mt-0.5 block font-mono text-xs text-gray-700">
                        <PoiCoordinates poi={poi} />
                      </span>
                    </>
                  ),
                },
                { header: 'データセット', headerClassName: 'w-[16%] px-3 py-2', className: 'break-words px-3 py-2 text-gray-800', cell: (poi) => nameOf(poi.dataset_id) },
                { header: '距離', headerClassName: 'w-[9%] px-3 py-2', className: 'whitespace-nowrap px-3 py-2 text-gray-800', cell: (poi) => formatDistance(poi.distance_m) },
                {
                  header: '操作',
                  headerClassName: 'w-[29%] px-5 py-2 text-right',
                  className: 'px-5 py-2',
                  cell: (poi) => <div className="flex flex-wrap justify-end gap-1">{actionsOf(poi, 'row')}</div>,
                },
              ]}
              // Cards below lg (phones, tablets, narrow windows), the table with room for every column from lg up.
              cards={{
                label: '検索結果のPOI',
                breakpoint: 'lg',
                terms: (poi) => (
                  <>
                    <dt className="text-gray-700">データセット</dt>
                    <dd className="break-words text-gray-800">{nameOf(poi.dataset_id)}</dd>
                    {poi.distance_m !== undefined ? (
                      <>
                        <dt className="text-gray-700">距離</dt>
                        <dd className="text-gray-800">{formatDistance(poi.distance_m)}</dd>
                      </>
                    ) : null}
                    <PoiCoordinatesTerm poi={poi} />
                  </>
                ),
                actions: (poi) => actionsOf(poi, 'card'),
              }}
            />
            <Pagination page={page} totalPages={totalPages} total={total} capped={capped} hasNext={list.data.next_cursor !== null} onChange={setPage} />
          </>
        )}
      </section>

      {viewing ? <PoiDetailModal poiId={viewing.poi_id} datasetId={viewing.dataset_id} onClose={() => setViewing(null)} /> : null}
      {editing ? <PoiFormModal datasetId={editing.dataset_id} poi={editing} onClose={() => setEditing(null)} /> : null}
      {moving ? (
        <Modal
          title="POIを移動"
          onClose={() => setMoving(null)}
          footer={
            <>
              <Button variant="secondary" onClick={() => setMoving(null)}>
                キャンセル
              </Button>
              <Button onClick={() => void onMove()} disabled={!moveTarget || move.isPending}>
                {move.isPending ? '移動中...' : '移動する'}
              </Button>
            </>
          }
        >
          <p className="mb-3 text-sm text-gray-800">「{moving.name}」を別のデータセットへ移動します。</p>
          <FormField id="move-target" label="移動先のデータセット" required>
            <DatasetPicker id="move-target" managed value={moveTarget} onChange={setMoveTarget} excludeId={moving.dataset_id} />
          </FormField>
        </Modal>
      ) : null}
      {deleting ? <PoiDeleteDialog poi={deleting} onDone={() => setDeleting(null)} onDeleted={refreshCounts} /> : null}
    </div>
  );
}

