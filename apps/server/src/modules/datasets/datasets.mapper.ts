import { senToYen, toSen } from '@poi/shared/money';
import type { Dataset, DatasetDetail } from '@poi/shared/schemas/datasets';
import type { CurrentUser } from '../../plugins/auth';
import type { DatasetRow, PriceHistoryRow } from './datasets.repository';
import { canManageDataset } from './dataset-access';

export const toDataset = (row: DatasetRow, user: CurrentUser): Dataset => ({
  dataset_id: row.id,
  name: row.name,
  description: row.description,
  price_per_search: senToYen(toSen(row.pricePerSearch)),
  is_platform_dataset: row.isPlatformDataset,
  created_at: row.createdAt.toISOString(),
  poi_count: row.poiCount,
  can_manage: canManageDataset(user, row),
});

export const toDatasetDetail = (row: DatasetRow, history: PriceHistoryRow[], user: CurrentUser): DatasetDetail => ({
  ...toDataset(row, user),
  pricing_history: history.map((h) => ({
    price: senToYen(toSen(h.price)),
    effective_from: h.effectiveFrom.toISOString(),
    effective_until: h.effectiveUntil ? h.effectiveUntil.toISOString() : null,
    reason: h.reason,
  })),
  stripe_product_id: row.stripeProductId,
  stripe_meter_id: row.stripeMeterId,
  assigned_user_id: row.assignedUserId,
  provider_user_id: row.providerUserId,
});
