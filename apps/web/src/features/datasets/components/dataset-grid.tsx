import type { ReactNode } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';
import { messages } from '@poi/shared/messages';
import type { Dataset } from '@poi/shared/schemas/dataset';
import { EmptyBlock, ErrorBlock, LoadingBlock } from '../../../components/ui/state-blocks';
import { getErrorMessage } from '../../../lib/api-client';
import { DatasetCard } from './dataset-card';

/** Loading, error, empty (with the create button when allowed) and loaded states of the grid. */
export function DatasetGrid({
  query,
  emptyMessage,
  emptyAction,
}: {
  query: UseQueryResult<{ datasets: Dataset[]; total: number }>;
  emptyMessage: string;
  emptyAction?: ReactNode;
}) {
  if (query.isPending) return <LoadingBlock />;
  if (query.isError) return <ErrorBlock message={getErrorMessage(query.error, messages.datasetListFailed)} onRetry={() => void query.refetch()} />;
  if (query.data.datasets.length === 0) return <EmptyBlock message={emptyMessage}>{emptyAction}</EmptyBlock>;
  return (
    <ul className="grid gap-4 sm:grid-cols-2 xl:grid-cols-3">
      {query.data.datasets.map((d) => (
        <li key={d.dataset_id}>
          <DatasetCard dataset={d} />
        </li>
      ))}
    </ul>
  );
}
