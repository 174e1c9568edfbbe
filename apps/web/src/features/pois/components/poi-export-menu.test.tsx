import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { PoiExportMenu } from './poi-export-menu';

vi.mock('../api/pois-api', () => ({ downloadExport: vi.fn() }));

describe('PoiExportMenu', () => {
  it('says, where the export is offered, that a plain CSV may not come back and the .csv.gz does', async () => {
    render(<PoiExportMenu datasetId="d" datasetName="店舗" />);
    await userEvent.click(screen.getByText('エクスポート'));
    expect(screen.getByTestId('export-size-note')).toHaveTextContent(
      'CSVはそのままでは取り込み上限(送信時10MB)を超えることがあります。gzip圧縮版(.csv.gz)なら展開後100MBまで、そのまま取り込めます',
    );
    expect(screen.getByRole('button', { name: /CSV\(gzip圧縮\)/ })).toHaveTextContent('大きなデータセットもそのまま再インポートできます(おすすめ)');
  });
});
