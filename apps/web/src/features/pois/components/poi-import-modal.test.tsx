import { act, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkImportFile, PoiImportModal } from './poi-import-modal';

const mutateAsync = vi.fn();
vi.mock('../api/pois-api', () => ({ useBulkImport: () => ({ mutateAsync, isPending: false }) }));

const fileOf = (name: string, size: number) => {
  const f = new File(['x'], name);
  Object.defineProperty(f, 'size', { value: size });
  return f;
};

afterEach(() => vi.useRealTimers());

describe('bulk import client checks', () => {
  it('needs a .csv or .json file of at most 10 MB', () => {
    expect(checkImportFile(undefined)).toBe('ファイルを選択してください');
    expect(checkImportFile(fileOf('a.txt', 10))).toBe('ファイルは .csv、.json、.geojson(gzip圧縮した .gz も可)を選択してください');
    expect(checkImportFile(fileOf('export.csv.gz', 10))).toBeNull();
    expect(checkImportFile(fileOf('export.geojson.gz', 10))).toBeNull();
    expect(checkImportFile(fileOf('a.csv', 10 * 1024 * 1024 + 1))).toBe('ファイルサイズが10MBを超えています。gzip圧縮したファイル(.csv.gz など)なら、送信時10MB・展開後100MBまで取り込めます');
    expect(checkImportFile(fileOf('a.json', 10 * 1024 * 1024))).toBeNull();
  });

  it('clears the input on a file over 10 MB, shows name and size otherwise', () => {
    render(<PoiImportModal datasetId="d" onClose={() => {}} onImported={() => {}} />);
    const input = screen.getByLabelText(/ファイル/, { selector: 'input[type=file]' }) as HTMLInputElement;
    fireEvent.change(input, { target: { files: [fileOf('big.csv', 11 * 1024 * 1024)] } });
    expect(screen.getByText('ファイルサイズが10MBを超えています。gzip圧縮したファイル(.csv.gz など)なら、送信時10MB・展開後100MBまで取り込めます')).toBeInTheDocument();
    expect(input.value).toBe('');
    expect(screen.getByRole('button', { name: 'インポート' })).toBeDisabled();
    fireEvent.change(input, { target: { files: [fileOf('pois.json', 2048)] } });
    expect(screen.getByTestId('import-file-info')).toHaveTextContent('pois.json(2.0 KB)');
    expect(screen.getByText('JSONのサンプル')).toBeInTheDocument();
  });

  it('defaults to the safe update mode and says what each mode does', () => {
    render(<PoiImportModal datasetId="d" onClose={() => {}} onImported={() => {}} />);
    expect(screen.getByRole('radio', { name: /^更新/ })).toBeChecked();
    expect(screen.getByText(/エクスポートしたファイルを編集して戻しても重複しません/)).toBeInTheDocument();
    expect(screen.getByText(/見出しは英語名・日本語名のどちらでも/)).toBeInTheDocument();
    expect(screen.getByText(/GeoJSON FeatureCollection/)).toBeInTheDocument();
  });

  it('raises progress by 10 every 200 ms to 90, then 100; fires imported 1 s after success', async () => {
    vi.useFakeTimers();
    let resolve!: (v: unknown) => void;
    mutateAsync.mockImplementation(() => new Promise((r) => (resolve = r)));
    const onImported = vi.fn();
    render(<PoiImportModal datasetId="d" onClose={() => {}} onImported={onImported} />);
    const input = screen.getByLabelText(/ファイル/, { selector: 'input[type=file]' });
    fireEvent.change(input, { target: { files: [fileOf('pois.csv', 100)] } });
    fireEvent.submit(document.getElementById('poi-import-form')!);
    await act(async () => {
      vi.advanceTimersByTime(600);
    });
    expect(screen.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '30');
    await act(async () => {
      vi.advanceTimersByTime(5000);
    });
    expect(screen.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '90');
    await act(async () => {
      resolve({
        success: true, message: 'ok', imported_count: 6, total_count: 7, added_count: 1, updated_count: 1, unchanged_count: 4, deleted_count: 0, skipped_count: 1,
        skipped: [{ line: 3, field: 'latitude', reason: '緯度は数値で入力してください' }],
      });
    });
    expect(mutateAsync).toHaveBeenCalledWith(expect.objectContaining({ datasetId: 'd', format: 'csv', mode: 'update' }));
    expect(screen.getByText('7 件中 6 件を登録しました(1 件をスキップ)')).toBeInTheDocument();
    expect(screen.getByTestId('import-counts')).toHaveTextContent('追加 1 件・更新 1 件・変更なし 4 件・スキップ 1 件');
    // Field names in Japanese.
    expect(screen.getByRole('cell', { name: '緯度' })).toBeInTheDocument();
    expect(screen.getByText('緯度は数値で入力してください')).toBeInTheDocument();
    expect(screen.getAllByRole('button', { name: '閉じる' })).toHaveLength(2);
    expect(screen.queryByRole('button', { name: 'キャンセル' })).toBeNull();
    expect(onImported).not.toHaveBeenCalled();
    await act(async () => {
      vi.advanceTimersByTime(1000);
    });
    expect(onImported).toHaveBeenCalledOnce();
  });
});
