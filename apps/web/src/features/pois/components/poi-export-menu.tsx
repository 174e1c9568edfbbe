import { useRef, useState } from 'react';
import { toast } from 'react-toastify';
import { ChevronDown, Download } from 'lucide-react';
import { getErrorMessage } from '../../../lib/api-client';
import { downloadBlob } from '../../../lib/browser-files';
import { IMPORT_MAX_BYTES, IMPORT_MAX_EXPANDED_BYTES } from '@poi/shared/limits';
import { downloadExport } from '../api/pois-api';

const mb = (bytes: number) => `${bytes / 1024 / 1024}MB`;

/**
 * Why the gzip choices exist: a plain CSV export is larger than the file it was imported from
 * (ids, quoting), so a dataset imported near the limit exports past it; compressed, it comes back.
 */
export const EXPORT_SIZE_NOTE = `CSVはそのままでは取り込み上限(送信時${mb(IMPORT_MAX_BYTES)})を超えることがあります。gzip圧縮版(.csv.gz)なら展開後${mb(IMPORT_MAX_EXPANDED_BYTES)}まで、そのまま取り込めます`;

const CHOICES = [
  { format: 'csv', gzip: false, label: 'CSV', hint: 'Excelで開けます' },
  { format: 'csv', gzip: true, label: 'CSV(gzip圧縮)', hint: '大きなデータセットもそのまま再インポートできます(おすすめ)' },
  { format: 'geojson', gzip: false, label: 'GeoJSON', hint: '地図ソフト向け' },
  { format: 'geojson', gzip: true, label: 'GeoJSON(gzip圧縮)', hint: '' },
] as const;

/**
 * The export choices of a dataset in one disclosure: CSV or GeoJSON, plain or gzip-compressed
 * (an export over 10 MB fits back into the import only compressed). The file is named after the
 * dataset by the server.
 */
export function PoiExportMenu({ datasetId, datasetName }: { datasetId: string; datasetName: string }) {
  const details = useRef<HTMLDetailsElement>(null);
  const [busy, setBusy] = useState(false);
  const onExport = async (format: 'csv' | 'geojson', gzip: boolean) => {
    if (details.current) details.current.open = false;
    setBusy(true);
    try {
      const { blob, fileName } = await downloadExport(datasetId, format, gzip);
      downloadBlob(fileName ?? `${datasetName}.${format}${gzip ? '.gz' : ''}`, blob);
    } catch (error) {
      toast.error(getErrorMessage(error, 'エクスポートに失敗しました'));
    } finally {
      setBusy(false);
    }
  };
  return (
    <details ref={details} className="relative">
      <summary className="inline-flex cursor-pointer list-none items-center justify-center gap-2 rounded-md border border-gray-400 bg-white px-4 py-2 text-sm font-medium text-gray-900 hover:bg-gray-50 focus:outline-none focus:ring-2 focus:ring-blue-600 focus:ring-offset-2 [&::-webkit-details-marker]:hidden">
        <Download className="h-4 w-4" aria-hidden="true" />
        {busy ? 'エクスポート中...' : 'エクスポート'}
        <ChevronDown className="h-4 w-4" aria-hidden="true" />
      </summary>
      <div className="absolute left-0 z-20 mt-1 w-72 max-w-[calc(100vw-2rem)] rounded-md border border-gray-200 bg-white py-1 shadow-lg sm:left-auto sm:right-0">
        <ul aria-label="エクスポートの形式">
          {CHOICES.map((c) => (
            <li key={c.label}>
              <button
                type="button"
                disabled={busy}
                onClick={() => void onExport(c.format, c.gzip)}
                className="block w-full px-4 py-2 text-left text-sm text-gray-900 hover:bg-gray-100 disabled:text-gray-500"
              >
                {c.label}
                {c.hint ? <span className="block text-xs text-gray-700">{c.hint}</span> : null}
              </button>
            </li>
          ))}
        </ul>
        <p className="border-t border-gray-200 px-4 py-2 text-xs text-gray-700" data-testid="export-size-note">
          {EXPORT_SIZE_NOTE}
        </p>
      </div>
    </details>
  );
}
