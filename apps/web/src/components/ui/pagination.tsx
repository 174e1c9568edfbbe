/** Previous/next with 'current / total ページ (全 N 件)'; shown only with more than one page (spec 2). */
export function Pagination({ page, totalPages, total, onChange }: { page: number; totalPages: number; total: number; onChange: (page: number) => void }) {
  if (totalPages <= 1) return null;
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
        {page} / {totalPages} ページ (全 {total} 件)
      </span>
      <button
        type="button"
        onClick={() => onChange(page + 1)}
        disabled={page >= totalPages}
        className="rounded-md border border-gray-400 bg-white px-3 py-1.5 font-medium text-gray-900 hover:bg-gray-50 disabled:cursor-not-allowed disabled:text-gray-500"
      >
        次へ
      </button>
    </nav>
  );
}
