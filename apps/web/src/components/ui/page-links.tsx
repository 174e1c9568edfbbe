import { Link } from 'react-router';
import { ChevronLeft, ChevronRight } from 'lucide-react';

/** 1 … 4 5 [6] 7 8 … 417: the first, the last and two either side of the current page. */
export function pageWindow(page: number, totalPages: number, around = 2): Array<number | 'gap'> {
  const pages = new Set<number>([1, totalPages]);
  for (let p = page - around; p <= page + around; p++) if (p >= 1 && p <= totalPages) pages.add(p);
  const sorted = [...pages].sort((a, b) => a - b);
  const out: Array<number | 'gap'> = [];
  sorted.forEach((p, i) => {
    const prev = sorted[i - 1];
    if (prev !== undefined && p - prev === 2) out.push(prev + 1);
    else if (prev !== undefined && p - prev > 2) out.push('gap');
    out.push(p);
  });
  return out;
}

const itemClass = 'inline-flex min-h-10 min-w-10 items-center justify-center rounded-md border px-3 text-sm font-medium';

/**
 * Page links (real URLs: a reload, a shared link and the back button keep the page): 前へ, the
 * page numbers around the current one with the first and the last, 次へ. Any page is two clicks
 * away however many there are. Hidden with a single page.
 */
export function PageLinks({ page, totalPages, href, label = 'ページ送り' }: { page: number; totalPages: number; href: (page: number) => string; label?: string }) {
  if (totalPages <= 1) return null;
  const idle = `${itemClass} border-gray-400 bg-white text-gray-900 hover:bg-gray-50`;
  const off = `${itemClass} border-gray-200 bg-gray-50 text-gray-500`;
  return (
    <nav aria-label={label} className="mt-6">
      <ul className="flex flex-wrap items-center justify-center gap-1.5">
        <li>
          {page > 1 ? (
            <Link to={href(page - 1)} className={idle} rel="prev">
              <ChevronLeft className="h-4 w-4" aria-hidden="true" />
              前へ
            </Link>
          ) : (
            <span className={off} aria-disabled="true">
              <ChevronLeft className="h-4 w-4" aria-hidden="true" />
              前へ
            </span>
          )}
        </li>
        {pageWindow(page, totalPages).map((p, i) =>
          p === 'gap' ? (
            <li key={`gap-${i}`} aria-hidden="true" className="px-1 text-gray-700">
              …
            </li>
          ) : (
            <li key={p}>
              {p === page ? (
                <span aria-current="page" className={`${itemClass} border-blue-700 bg-blue-700 text-white`}>
                  <span className="sr-only">ページ </span>
                  {p}
                </span>
              ) : (
                <Link to={href(p)} className={idle} aria-label={`ページ ${p}`}>
                  {p}
                </Link>
              )}
            </li>
          ),
        )}
        <li>
          {page < totalPages ? (
            <Link to={href(page + 1)} className={idle} rel="next">
              次へ
              <ChevronRight className="h-4 w-4" aria-hidden="true" />
            </Link>
          ) : (
            <span className={off} aria-disabled="true">
              次へ
              <ChevronRight className="h-4 w-4" aria-hidden="true" />
            </span>
          )}
        </li>
      </ul>
    </nav>
  );
}
