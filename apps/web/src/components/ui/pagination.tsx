/**
 * Previous/next with 'current / total ページ (全 N 件)'; shown only with more than one page.
 * With a capped total ("N件以上") the last page is unknown: 'current ページ (N件以上)', and 次へ
 * stays enabled while the server says a next page exists (`hasNext`), so every page is reachable.
 */
export function Pagination({
  page,
  totalPages,
  total,
  capped = false,
  hasNext = false,
  onChange,
}: {
  page: number;
  totalPages: number;
  total: number;
  capped?: boolean;
  hasNext?: boolean;
  onChange: (page: number) => void;
}) {
  const nextDisabled = capped ? !hasNext : page >= totalPages;
  if (page <= 1 && nextDisabled) return null;
  return (
    <nav aria-label="ページ送り" className="mt-4 flex items-center justify-between gap-3 text-sm">
      <button
        type="button"
        onClick={() => onChange(page - 1)}
        disabled={page <= 1}
        className="rounded-md border border-gray-400 bg-white px-3 py-1.5 font-medium text-gray-900 hover:bg-gray-50 disabled:cursor-not-allowed disabled:text-gray-500"
      >
        前へ
      </button>
      <span className="text-gray-800">
        {capped ? `${page} ページ (${total}件以上)` : `${page} / ${totalPages} ページ (全 ${total} 件)`}
      </span>
      <button
        type="button"
        onClick={() => onChange(page + 1)}
        disabled={nextDisabled}
        className="rounded-md border border-gray-400 bg-white px-3 py-1.5 font-medium text-gray-900 hover:bg-gray-50 disabled:cursor-not-allowed disabled:text-gray-500"
      >
        次へ
      </button>
    </nav>
  );
}
