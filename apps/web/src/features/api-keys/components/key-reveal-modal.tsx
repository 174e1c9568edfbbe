import { useState, type ReactNode } from 'react';
import { AlertTriangle } from 'lucide-react';
import { Link } from 'react-router';
import type { Dataset } from '@poi/shared/schemas/datasets';
import { Button } from '../../../components/ui/button';
import { ConfirmDialog } from '../../../components/ui/confirm-dialog';
import { inputClass } from '../../../components/ui/form-field';
import { Modal } from '../../../components/ui/modal';
import { apiOrigin, buildCurlCommand } from '../curl-command';
import { CopyButton } from './copy-button';

/** The datasets the curl example can search: the default one, and the picker to change it (composed by the page). */
export interface TryDatasets {
  initial: Dataset | null;
  loading: boolean;
  renderPicker: (props: { id: string; value: Dataset; onChange: (dataset: Dataset) => void }) => ReactNode;
}

/**
 * The one time a key is shown in full: copy it, and copy a ready curl command that uses it.
 * Escape and × ask 「キーを保存しましたか？」 first unless the key was copied (the backdrop does
 * nothing); the footer's 「保存しました。閉じる」 is itself the answer.
 */
export function KeyRevealModal({ secret, name, rotated, datasets, onClose }: { secret: string; name: string; rotated?: boolean; datasets: TryDatasets; onClose: () => void }) {
  const [copied, setCopied] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const onCopied = () => setCopied(true);
  const requestClose = () => (copied ? onClose() : setConfirming(true));
  const [picked, setPicked] = useState<Dataset | null>(null);
  const chosen = picked ?? datasets.initial;
  const datasetId = chosen?.dataset_id ?? '';
  const command = datasetId ? buildCurlCommand(apiOrigin(), secret, datasetId) : '';

  return (
    <Modal
      title={rotated ? '新しいAPIキー' : 'APIキーを作成しました'}
      onClose={requestClose}
      closeOnBackdrop={false}
      size="lg"
      footer={<Button onClick={onClose}>保存しました。閉じる</Button>}
    >
      <div className="space-y-5">
        <div role="alert" className="flex gap-3 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950">
          <AlertTriangle className="mt-0.5 h-5 w-5 shrink-0" aria-hidden="true" />
          <p>
            このAPIキーは今だけ表示されます。閉じると二度と表示できないため、安全な場所に保存してください。キーを第三者に共有したり、公開リポジトリに含めたりしないでください。
            {rotated ? ' 古いキーは24時間後に無効になります。それまでにアプリケーションの設定を新しいキーに切り替えてください。' : ''}
          </p>
        </div>
        <div>
          <label htmlFor="revealed-key" className="block text-sm font-medium text-gray-800">
            {name}
          </label>
          <div className="mt-1 flex gap-2">
            <input id="revealed-key" readOnly value={secret} className={`${inputClass} mt-0 font-mono`} onFocus={(e) => e.currentTarget.select()} onCopy={onCopied} />
            <CopyButton text={secret} label="APIキーをコピー" successMessage="APIキーをコピーしました" onCopied={onCopied} />
          </div>
        </div>
        <section aria-labelledby="try-it" className="rounded-md border border-gray-200 bg-gray-50 p-4">
          <h3 id="try-it" className="font-semibold text-gray-900">
            試してみる
          </h3>
          <p className="mt-1 text-sm text-gray-700">ターミナルで次のコマンドを実行すると、検索結果のJSONが返ります。検索は使用量に反映されます。</p>
          {chosen ? (
            <>
              <label htmlFor="try-dataset" className="mt-3 block text-sm font-medium text-gray-800">
                検索するデータセット
              </label>
              {datasets.renderPicker({ id: 'try-dataset', value: chosen, onChange: setPicked })}
              <div className="mt-3 flex flex-col gap-2 sm:flex-row sm:items-start">
                <pre className="min-w-0 flex-1 overflow-x-auto whitespace-pre-wrap break-all rounded-md bg-gray-900 p-3 font-mono text-xs text-gray-100" data-testid="curl-command">
                  {command}
                </pre>
                <CopyButton text={command} label="curlコマンドをコピー" successMessage="curlコマンドをコピーしました" onCopied={onCopied} />
              </div>
            </>
          ) : (
            <p className="mt-3 text-sm text-gray-700">{datasets.loading ? 'データセットを読み込み中...' : '検索できるデータセットがまだありません。'}</p>
          )}
          <p className="mt-3 text-sm text-gray-700">
            パラメーターや応答の詳細は{' '}
            <Link to="/docs/api" target="_blank" rel="noopener" className="text-blue-800 underline">
              APIドキュメント
            </Link>{' '}
            をご覧ください。
          </p>
        </section>
      </div>
      {confirming ? (
        <ConfirmDialog
          title="キーを保存しましたか？"
          message={'このAPIキーは閉じると二度と表示できません。\nコピーして安全な場所に保存してから閉じてください。'}
          confirmLabel="保存したので閉じる"
          onConfirm={onClose}
          onCancel={() => setConfirming(false)}
        />
      ) : null}
    </Modal>
  );
}
