import { useEffect, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { CheckCircle2 } from 'lucide-react';
import { formatFileSize } from '@poi/shared/format';
import {
  IMPORT_MAX_BYTES,
  IMPORT_PROGRESS_CAP,
  IMPORT_PROGRESS_INTERVAL_MS,
  IMPORT_PROGRESS_STEP,
  IMPORT_SUCCESS_CLOSE_MS,
} from '@poi/shared/limits';
import { messages } from '@poi/shared/messages';
import { IMPORT_DEFAULT_MODE, IMPORT_FIELD_LABELS, type BulkImportResponse, type ImportFormat, type ImportMode } from '@poi/shared/schemas/pois';
import { Button } from '../../../components/ui/button';
import { DataTable } from '../../../components/ui/data-table';
import { Modal } from '../../../components/ui/modal';
import { getFieldErrorMessage } from '../../../lib/api-client';
import { useBulkImport } from '../api/pois-api';

/** Cell padding of the skipped-lines table. */
const CELL = 'px-3 py-1.5';

const SAMPLES: Record<ImportFormat, string> = {
  csv: `名称,緯度,経度,カテゴリ,住所,説明,タグ
東京タワー,35.658584,139.745431,観光,東京都港区芝公園4-2-8,展望台,展望台|夜景
カフェ丸の内,35.681236,139.767125,カフェ,東京都千代田区丸の内1-1,,"Wi-Fi|禁煙, 喫煙可"`,
  json: `[
  {
    "name": "東京タワー",
    "latitude": 35.658584,
    "longitude": 139.745431,
    "category": "観光",
    "address": "東京都港区芝公園4-2-8",
    "tags": ["展望台", "夜景"]
  }
]`,
};

const MODES: Array<{ value: ImportMode; label: string; help: string }> = [
  { value: 'update', label: '更新(おすすめ)', help: 'poi_id がこのデータセットのPOIと一致する行はそのPOIを更新し、それ以外の行は追加します。エクスポートしたファイルを編集して戻しても重複しません。' },
  { value: 'add', label: '追加', help: 'すべての行を新しいPOIとして追加します(poi_id は無視します)。別のデータセットのエクスポートを取り込むときに使います。' },
  { value: 'replace', label: '置き換え', help: 'ファイルにないこのデータセットのPOIを削除し、ファイルの内容に置き換えます(更新と同じく poi_id が一致するPOIはIDを保ちます)。' },
];

const IMPORT_FILE_NAME = /\.(csv|json|geojson)(\.gz)?$/i;

/** Client checks of the bulk import: a file, .csv/.json/.geojson (or gzip of one), at most 10 MB as sent. */
export function checkImportFile(file: File | undefined): string | null {
  if (!file) return messages.importNoFile;
  if (!IMPORT_FILE_NAME.test(file.name)) return messages.importFileExtension;
  if (file.size > IMPORT_MAX_BYTES) return messages.importTooLarge;
  return null;
}

/**
 * The bulk import modal: format, file with name and size, samples, field lists,
 * simulated progress (+10 every 200 ms to 90, then 100), the success panel, and the imported
 * event 1 s after success.
 */
export function PoiImportModal({ datasetId, onClose, onImported }: { datasetId: string; onClose: () => void; onImported: () => void }) {
  const [format, setFormat] = useState<ImportFormat>('csv');
  const [mode, setMode] = useState<ImportMode>(IMPORT_DEFAULT_MODE);
  const [file, setFile] = useState<File | undefined>();
  const [error, setError] = useState<string | null>(null);
  const [progress, setProgress] = useState(0);
  const [result, setResult] = useState<BulkImportResponse | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const timers = useRef<number[]>([]);
  const mutation = useBulkImport();
  const uploading = mutation.isPending;

  useEffect(() => () => timers.current.forEach((t) => window.clearInterval(t)), []);

  const onFile = (e: ChangeEvent<HTMLInputElement>) => {
    const chosen = e.target.files?.[0];
    const problem = chosen ? checkImportFile(chosen) : null;
    setError(problem);
    if (problem) {
      e.target.value = '';
      setFile(undefined);
      return;
    }
    setFile(chosen);
    if (chosen && /\.(json|geojson)(\.gz)?$/i.test(chosen.name)) setFormat('json');
    if (chosen && /\.csv(\.gz)?$/i.test(chosen.name)) setFormat('csv');
  };

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const problem = checkImportFile(file);
    if (problem || !file) {
      setError(problem ?? messages.importNoFile);
      return;
    }
    setError(null);
    setProgress(0);
    const ticker = window.setInterval(() => setProgress((p) => Math.min(IMPORT_PROGRESS_CAP, p + IMPORT_PROGRESS_STEP)), IMPORT_PROGRESS_INTERVAL_MS);
    timers.current.push(ticker);
    try {
      const answer = await mutation.mutateAsync({ datasetId, format, mode, file });
      window.clearInterval(ticker);
      setProgress(100);
      setResult(answer);
      timers.current.push(window.setTimeout(onImported, IMPORT_SUCCESS_CLOSE_MS));
    } catch (err) {
      window.clearInterval(ticker);
      setProgress(0);
      setError(getFieldErrorMessage(err, messages.importFailed));
    }
  };

  return (
    <Modal
      title="POI一括インポート"
      onClose={onClose}
      size="lg"
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            {result ? '閉じる' : 'キャンセル'}
          </Button>
          {result ? null : (
            <Button type="submit" form="poi-import-form" disabled={uploading || !file}>
              {uploading ? 'アップロード中...' : 'インポート'}
            </Button>
          )}
        </>
      }
    >
      {result ? (
        <div role="status" className="space-y-4">
          <div className="flex items-start gap-3 rounded-md bg-green-50 p-4 text-green-900">
            <CheckCircle2 className="mt-0.5 h-5 w-5 shrink-0" aria-hidden="true" />
            <div>
              <p className="font-medium">インポートが完了しました</p>
              <p className="mt-1 text-sm">
                {result.total_count} 件中 {result.imported_count} 件を登録しました
                {result.skipped_count ? `(${result.skipped_count} 件をスキップ)` : ''}
              </p>
              <p className="mt-1 text-sm" data-testid="import-counts">
                追加 {result.added_count} 件・更新 {result.updated_count} 件・変更なし {result.unchanged_count} 件・スキップ {result.skipped_count} 件
                {result.deleted_count ? `・削除 ${result.deleted_count} 件` : ''}
              </p>
            </div>
          </div>
          <div className="h-2 w-full overflow-hidden rounded bg-gray-200" aria-hidden="true">
            <div className="h-full bg-green-600" style={{ width: '100%' }} />
          </div>
          {result.skipped.length ? (
            <div>
              <p className="text-sm font-medium text-gray-900">スキップされた行{result.skipped_count > result.skipped.length ? `(先頭${result.skipped.length}件)` : ''}</p>
              <DataTable
                caption="スキップされた行"
                // The same line can be skipped for several fields: the position keeps keys apart.
                rows={result.skipped.map((s, i) => ({ ...s, key: `${s.line}-${s.field}-${i}` }))}
                rowKey={(s) => s.key}
                className="mt-2 max-h-56 overflow-auto rounded border border-gray-200"
                tableClassName="w-full text-sm"
                headClassName="sticky top-0 bg-gray-50 text-left text-xs text-gray-700"
                bodyClassName="divide-y divide-gray-100"
                columns={[
                  { header: '行', headerClassName: CELL, className: `${CELL} text-gray-900`, cell: (s) => s.line },
                  { header: '項目', headerClassName: CELL, className: `${CELL} text-gray-800`, cell: (s) => IMPORT_FIELD_LABELS[s.field] ?? s.field },
                  { header: '理由', headerClassName: CELL, className: `${CELL} text-gray-800`, cell: (s) => s.reason },
                ]}
              />
            </div>
          ) : null}
        </div>
      ) : (
        <form id="poi-import-form" onSubmit={onSubmit} noValidate className="space-y-4">
          <fieldset>
            <legend className="text-sm font-medium text-gray-800">
              ファイル形式<span className="ml-1 text-red-700">*</span>
            </legend>
            <div className="mt-2 flex gap-4">
              {(['csv', 'json'] as const).map((f) => (
                <label key={f} className="flex items-center gap-2 text-sm text-gray-900">
                  <input type="radio" name="import-format" value={f} checked={format === f} onChange={() => setFormat(f)} disabled={uploading} />
                  {f.toUpperCase()}
                </label>
              ))}
            </div>
          </fieldset>
          <div>
            <label htmlFor="import-file" className="block text-sm font-medium text-gray-800">
              ファイル<span className="ml-1 text-red-700">*</span>
            </label>
            <input
              id="import-file"
              ref={input}
              type="file"
              accept=".csv,.json,.geojson,.gz,text/csv,application/json,application/gzip"
              onChange={onFile}
              disabled={uploading}
              className="mt-1 block w-full text-sm text-gray-900 file:mr-3 file:rounded-md file:border-0 file:bg-blue-50 file:px-3 file:py-2 file:text-blue-900"
            />
            {file ? (
              <p className="mt-1 text-sm text-gray-800" data-testid="import-file-info">
                {file.name}({formatFileSize(file.size)})
              </p>
            ) : null}
            <p className="mt-1 text-xs text-gray-700">
              CSV(UTF-8 または Shift_JIS)、JSON または GeoJSON。gzip圧縮(.gz)も可。送信するファイルは最大10MB、展開後は最大100MB
            </p>
          </div>
          <fieldset>
            <legend className="text-sm font-medium text-gray-800">取り込み方法</legend>
            <div className="mt-2 space-y-2">
              {MODES.map((m) => (
                <label key={m.value} className="flex items-start gap-2 text-sm text-gray-900">
                  <input type="radio" name="import-mode" value={m.value} checked={mode === m.value} onChange={() => setMode(m.value)} disabled={uploading} className="mt-1" />
                  <span>
                    <span className="font-medium">{m.label}</span>
                    <span className="block text-xs text-gray-700">{m.help}</span>
                  </span>
                </label>
              ))}
            </div>
          </fieldset>

          <div className="grid gap-3 text-sm sm:grid-cols-2">
            <div>
              <p className="font-medium text-gray-900">必須項目</p>
              <p className="mt-1 text-gray-800">name(名称)、latitude(緯度)、longitude(経度)</p>
              <p className="mt-1 text-xs text-gray-700">見出しは英語名・日本語名のどちらでも構いません。poi_id は更新・置き換えで使います。</p>
            </div>
            <div>
              <p className="font-medium text-gray-900">任意項目</p>
              <p className="mt-1 text-gray-800">category、address、description、phone、website、image_url、tags</p>
            </div>
          </div>
          <ul className="list-disc space-y-1 pl-5 text-xs text-gray-700">
            <li>タグは | で区切ります。タグの中の | は <code>{'\\|'}</code>、\ は <code>{'\\\\'}</code> と書きます(カンマや「、」はタグの一部です)。JSONではタグの配列も使えます。</li>
            <li>CSVで先頭が ' のセルは、その ' を除いて取り込みます(エクスポートは = + - @ などで始まるセルの先頭に ' を付けて、Excelで数式として実行されないようにしています)。</li>
            <li>JSONはPOIの配列、{'{"pois": [...]}'}、GeoJSON FeatureCollection(Point)を取り込めます。</li>
            <li>スキップされた行の番号は、CSVではExcelの行番号(見出しが1行目、最初のデータが2行目)、JSONではPOIの順番(1件目が1)です。</li>
          </ul>
          <div>
            <p className="text-sm font-medium text-gray-900">{format === 'csv' ? 'CSVのサンプル' : 'JSONのサンプル'}</p>
            <pre tabIndex={0} className="mt-1 max-h-40 overflow-auto rounded bg-gray-900 p-3 text-xs text-gray-100">{SAMPLES[format]}</pre>
          </div>

          {uploading || progress > 0 ? (
            <div>
              <div
                role="progressbar"
                aria-label="アップロードの進捗"
                aria-valuemin={0}
                aria-valuemax={100}
                aria-valuenow={progress}
                className="h-2 w-full overflow-hidden rounded bg-gray-200"
              >
                <div className="h-full bg-blue-700 transition-all" style={{ width: `${progress}%` }} />
              </div>
              <p className="mt-1 text-right text-xs text-gray-700">{progress}%</p>
            </div>
          ) : null}
          {error ? (
            <p role="alert" className="whitespace-pre-line rounded-md bg-red-50 p-3 text-sm text-red-800">
              {error}
            </p>
          ) : null}
        </form>
      )}
    </Modal>
  );
}
