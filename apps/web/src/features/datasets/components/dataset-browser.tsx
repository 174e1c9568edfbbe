import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { Search } from 'lucide-react';
import { messages } from '@poi/shared/messages';
import { DATASET_KEYWORD_MAX, type DatasetSort } from '@poi/shared/schemas/datasets';
import { Button } from '../../../components/ui/button';
import { inputClass } from '../../../components/ui/form-field';
import { PageLinks } from '../../../components/ui/page-links';
import { EmptyBlock, ErrorBlock, LoadingBlock } from '../../../components/ui/state-blocks';
import { getErrorMessage } from '../../../lib/api-client';
import { useDebouncedValue } from '../../../lib/use-debounced-value';
import { useDatasets } from '../api/datasets-api';
import { DATASET_PAGE_SIZE, useDatasetListState } from '../use-dataset-list-state';
import { DatasetFilterRadios } from './dataset-filter';
import { DatasetGrid } from './dataset-grid';

export const SORT_OPTIONS: Array<{ value: DatasetSort; label: string }> = [
  { value: 'newest', label: '新しい順' },
  { value: 'name', label: '名前順' },
  { value: 'price_asc', label: '価格の安い順' },
  { value: 'price_desc', label: '価格の高い順' },
];

/** Applies what is typed after a pause (or at once on Enter); follows the URL when it changes elsewhere (back, clear). */
function KeywordBox({ value, onChange }: { value: string; onChange: (keyword: string) => void }) {
  const [text, setText] = useState(value);
  const [shown, setShown] = useState(value);
  if (value !== shown) {
    setShown(value);
    setText(value);
  }
  const settled = useDebouncedValue(text, 300);
  const latest = useRef({ value, onChange });
  useEffect(() => {
    latest.current = { value, onChange };
  });
  useEffect(() => {
    if (settled.trim() !== latest.current.value.trim()) latest.current.onChange(settled);
  }, [settled]);

  return (
    <form
      role="search"
      aria-label="データセットを検索"
      className="flex min-w-0 flex-1 items-end gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        if (text.trim() !== value.trim()) onChange(text);
      }}
    >
      <div className="min-w-0 flex-1">
        <label htmlFor="dataset-keyword" className="block text-sm font-medium text-gray-800">
          キーワード
        </label>
        <input
          id="dataset-keyword"
          type="search"
          value={text}
          maxLength={DATASET_KEYWORD_MAX}
          onChange={(e) => setText(e.target.value)}
          placeholder="名前・説明で検索"
          aria-describedby="dataset-keyword-hint"
          className={inputClass}
        />
        <p id="dataset-keyword-hint" className="sr-only">
          全角・半角、大文字・小文字、ひらがな・カタカナ、記号は区別しません。空白で区切るとすべてを含むデータセットを探します。
        </p>
      </div>
      <Button type="submit" variant="secondary" aria-label="検索">
        <Search className="h-4 w-4" aria-hidden="true" />
        <span className="hidden sm:inline">検索</span>
      </Button>
    </form>
  );
}

/**
 * /marketplace and /datasets (the console specification's "Dataset list"): the card grid and radio filter,
 * a keyword box, a sort, page links reaching every dataset and 「全 N 件」; the view lives in
 * the URL (useDatasetListState).
 */
export function DatasetBrowser({ managed = false, emptyMessage, emptyAction }: { managed?: boolean; emptyMessage: string; emptyAction?: ReactNode }) {
  const view = useDatasetListState();
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const query = useDatasets(
    { type: view.type, managed, keyword: view.keyword, sort: view.sort, limit: DATASET_PAGE_SIZE, offset: (view.page - 1) * DATASET_PAGE_SIZE },
    { keepPrevious: true },
  );
  const narrowed = view.type !== 'all' || view.keyword.trim() !== '';
  const total = query.data?.total ?? 0;
  const totalPages = Math.max(1, Math.ceil(total / DATASET_PAGE_SIZE));
  const href = (page: number) => `${pathname}${view.pageHref(page)}`;
  const first = (view.page - 1) * DATASET_PAGE_SIZE + 1;
  const shown = query.data?.datasets.length ?? 0;

  let body: ReactNode;
  if (query.isPending) body = <LoadingBlock />;
  else if (query.isError) body = <ErrorBlock message={getErrorMessage(query.error, messages.datasetListFailed)} onRetry={() => void query.refetch()} />;
  else if (total === 0 && narrowed)
    body = (
      <EmptyBlock message="条件に一致するデータセットはありません">
        <Button variant="secondary" onClick={() => void navigate(pathname)}>
          条件をクリア
        </Button>
      </EmptyBlock>
    );
  else if (total === 0) body = <EmptyBlock message={emptyMessage}>{emptyAction}</EmptyBlock>;
  else if (shown === 0)
    body = (
      <EmptyBlock message="このページにはデータセットがありません">
        <Link to={href(totalPages)} className="rounded-md bg-blue-700 px-4 py-2 text-sm font-medium text-white hover:bg-blue-800">
          最後のページ({totalPages})へ
        </Link>
      </EmptyBlock>
    );
  else
    body = (
      <>
        <DatasetGrid datasets={query.data.datasets} busy={query.isPlaceholderData} />
        <PageLinks page={Math.min(view.page, totalPages)} totalPages={totalPages} href={href} label="データセット一覧のページ送り" />
      </>
    );

  return (
    <div>
      <div className="mb-4 flex flex-col gap-3 sm:flex-row sm:items-end">
        <KeywordBox value={view.keyword} onChange={view.setKeyword} />
        <div className="sm:w-48">
          <label htmlFor="dataset-sort" className="block text-sm font-medium text-gray-800">
            並び順
          </label>
          <select id="dataset-sort" value={view.sort} onChange={(e) => view.setSort(e.target.value as DatasetSort)} className={inputClass}>
            {SORT_OPTIONS.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </div>
      </div>
      <DatasetFilterRadios value={view.type} onChange={view.setType} />
      <p role="status" className="mb-3 text-sm text-gray-800" data-testid="dataset-total">
        {query.data ? (
          <>
            <span className="font-semibold">全 {total.toLocaleString('ja-JP')} 件</span>
            {shown > 0 ? (
              <span className="ml-2 text-gray-700">
                ({first.toLocaleString('ja-JP')}〜{(first + shown - 1).toLocaleString('ja-JP')} 件目 / {Math.min(view.page, totalPages)} / {totalPages} ページ)
              </span>
            ) : null}
          </>
        ) : null}
      </p>
      {body}
    </div>
  );
}
