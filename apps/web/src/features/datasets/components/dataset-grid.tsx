import type { Dataset } from '@poi/shared/schemas/datasets';
import { DatasetCard } from './dataset-card';

/** The card grid of the console specification's "Dataset list"; dimmed while the next page, keyword or sort loads. */
export function DatasetGrid({ datasets, busy = false }: { datasets: Dataset[]; busy?: boolean }) {
  return (
    <ul aria-busy={busy} className={`grid gap-4 sm:grid-cols-2 xl:grid-cols-3 ${busy ? 'opacity-60 transition-opacity' : ''}`}>
      {datasets.map((d) => (
        <li key={d.dataset_id}>
          <DatasetCard dataset={d} />
        </li>
      ))}
    </ul>
  );
}
