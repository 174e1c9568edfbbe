import type { ReactNode } from 'react';
import { Download } from 'lucide-react';
import { toast } from 'react-toastify';
import { getErrorMessage } from '../../lib/api-client';
import { downloadCsv } from '../../lib/admin-api';
import { Button } from '../ui/button';
import { Pagination } from '../ui/pagination';

/** An admin screen's CSV download: the file the screen shows (with its filters), a toast when it fails. */
export function CsvButton({ url, filename, params }: { url: string; filename: string; params?: Parameters<typeof downloadCsv>[2] }) {
  return (
    <Button variant="secondary" onClick={() => downloadCsv(url, filename, params).catch((err) => toast.error(getErrorMessage(err, 'CSVのダウンロードに失敗しました')))}>
      <Download className="h-4 w-4" aria-hidden /> CSV
    </Button>
  );
}

interface AdminListPageProps {
  total: number;
  page: number;
  pageSize: number;
  onPage: (page: number) => void;
  /** The word before the total: 全 (every match) unless the list is of one kind (入金待ち). */
  totalLabel?: string;
  children: ReactNode;
}

/** A page of an admin list: the matching total (announced as it changes), the table, then the pages of `pageSize` rows. */
export function AdminListPage({ total, page, pageSize, onPage, totalLabel = '全', children }: AdminListPageProps) {
  return (
    <>
      <p className="mb-2 text-sm text-gray-700" aria-live="polite">
        {totalLabel} {total.toLocaleString('ja-JP')} 件
      </p>
      {children}
      <Pagination page={page} totalPages={Math.max(1, Math.ceil(total / pageSize))} total={total} onChange={onPage} />
    </>
  );
}
