import { formatCoordinate, formatDateTime } from '@poi/shared/format';
import { messages } from '@poi/shared/messages';
import { Modal } from '../../../components/ui/modal';
import { ErrorBlock, LoadingBlock } from '../../../components/ui/state-blocks';
import { getErrorMessage } from '../../../lib/api-client';
import { usePoi } from '../api/pois-api';

const link = (url: string | null) =>
  url ? (
    <a href={url} target="_blank" rel="noopener noreferrer nofollow" className="break-all text-blue-800 underline">
      {url}
    </a>
  ) : (
    '-'
  );

/** Every field of one POI. */
export function PoiDetailModal({ poiId, datasetId, onClose }: { poiId: string; datasetId: string; onClose: () => void }) {
  const query = usePoi(poiId, datasetId);
  return (
    <Modal title="POI詳細" onClose={onClose} size="lg">
      {query.isPending ? (
        <LoadingBlock />
      ) : query.isError ? (
        <ErrorBlock message={getErrorMessage(query.error, messages.poiFetchFailed)} />
      ) : (
        <dl className="grid gap-x-4 gap-y-3 text-sm sm:grid-cols-[8rem_1fr]">
          {(
            [
              ['POI ID', <code className="break-all font-mono text-xs">{query.data.poi_id}</code>],
              ['名称', query.data.name],
              ['緯度', formatCoordinate(query.data.latitude)],
              ['経度', formatCoordinate(query.data.longitude)],
              ['住所', query.data.address || '-'],
              ['カテゴリ', query.data.category || '-'],
              ['説明', <span className="whitespace-pre-line">{query.data.description || '-'}</span>],
              ['電話番号', query.data.phone || '-'],
              ['ウェブサイト', link(query.data.website)],
              ['画像URL', link(query.data.image_url)],
              [
                'タグ',
                query.data.tags.length ? (
                  <span className="flex flex-wrap gap-1">
                    {query.data.tags.map((t) => (
                      <span key={t} className="rounded bg-gray-100 px-2 py-0.5 text-xs text-gray-800">
                        {t}
                      </span>
                    ))}
                  </span>
                ) : (
                  '-'
                ),
              ],
              ['データセットID', <code className="break-all font-mono text-xs">{query.data.dataset_id}</code>],
              ['登録日時', formatDateTime(query.data.created_at)],
              ['更新日時', formatDateTime(query.data.updated_at)],
            ] as const
          ).map(([term, value]) => (
            <div key={term} className="contents">
              <dt className="font-medium text-gray-700">{term}</dt>
              <dd className="text-gray-900">{value}</dd>
            </div>
          ))}
        </dl>
      )}
    </Modal>
  );
}
