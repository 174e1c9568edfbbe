import { messages } from '@poi/shared/messages';
import { DATASET_KEYWORD_MAX, type Dataset, type DatasetFilter, type DatasetSort } from '@poi/shared/schemas/datasets';
import { SearchCombobox, type ComboboxResults } from '../../../components/ui/search-combobox';
import { getErrorMessage } from '../../../lib/api-client';
import { useDatasets } from '../api/datasets-api';

/** Suggestions per request: a keyword narrows further, so any dataset can be reached however many exist. */
export const DATASET_PICKER_LIMIT = 20;

export interface DatasetPickerProps {
  /** The input's id, for the caller's <label htmlFor>. */
  id: string;
  value: Dataset | null;
  onChange: (dataset: Dataset | null) => void;
  /** Only datasets the user manages (the list call's managed=true). */
  managed?: boolean;
  type?: DatasetFilter;
  /** The order of the suggestions (name by default). */
  sort?: DatasetSort;
  /** A dataset not to offer (the POI's own dataset as a move target). */
  excludeId?: string;
  /** When set, a first option meaning "none chosen" (value null), e.g. every managed dataset. */
  noneLabel?: string;
  /** Secondary text of an option (its POI count, its price). */
  describe?: (dataset: Dataset) => string;
  describedBy?: string;
  invalid?: boolean;
}

/**
 * The searchable dataset picker of every dataset choice in the console (README "Dataset
 * picker"): typing asks GET /console/v1/datasets/public for datasets whose name or description
 * contains the words (the lists' keyword, NFKC and case folded), 20 at a time.
 */
export function DatasetPicker({ managed = false, type = 'all', sort = 'name', describe, excludeId, ...rest }: DatasetPickerProps) {
  const useResults = (keyword: string, enabled: boolean): ComboboxResults<Dataset> => {
    const query = useDatasets({ type, managed, keyword, sort, limit: DATASET_PICKER_LIMIT }, { keepPrevious: true, enabled });
    return {
      items: query.data?.datasets,
      total: query.data?.total ?? 0,
      fetching: query.isFetching,
      error: query.isError ? getErrorMessage(query.error, messages.datasetListFailed) : null,
    };
  };
  return (
    <SearchCombobox<Dataset>
      {...rest}
      useResults={useResults}
      excludeKey={excludeId}
      keyOf={(d) => d.dataset_id}
      labelOf={(d) => d.name}
      detailOf={describe}
      listLabel="データセットの候補"
      toggleLabel="データセットの候補を開く"
      placeholder="名前で検索して選択"
      narrowHint="名前や説明の一部を入力すると絞り込めます"
      emptyText="該当するデータセットはありません"
      maxLength={DATASET_KEYWORD_MAX}
    />
  );
}
