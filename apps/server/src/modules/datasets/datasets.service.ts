import { messages } from '@poi/shared/messages';
import { senToDecimalString, toSen } from '@poi/shared/money';
import { isAdmin, isDataProvider, isPlatformAdmin } from '@poi/shared/roles';
import type { DatasetFilter, DatasetSort } from '@poi/shared/schemas/datasets';
import type { Db, Executor } from '../../db/client';
import { inTransaction } from '../../db/transaction';
import type { ChangeFeed } from '../../lib/change-feed';
import { AppError } from '../../lib/errors';
import type { CurrentUser } from '../../plugins/auth';
import { findUserById } from '../users/users.repository';
import * as repo from './datasets.repository';
import { canManageDataset, roleOf } from './dataset-access';

export const INITIAL_PRICE_REASON = '初期価格';

export interface DatasetInput {
  name: string;
  description: string | null;
  price_per_search: number;
}

export interface DatasetsService {
  list(user: CurrentUser, query: { type: DatasetFilter; keyword?: string; sort: DatasetSort; managed: boolean; limit: number; offset: number }): Promise<{ rows: repo.DatasetRow[]; total: number }>;
  get(user: CurrentUser, id: string): Promise<{ dataset: repo.DatasetRow; history: repo.PriceHistoryRow[] }>;
  createAsProvider(user: CurrentUser, input: DatasetInput): Promise<repo.DatasetRow>;
  assign(user: CurrentUser, input: DatasetInput & { assigned_user_id?: string; provider_user_id?: string }): Promise<repo.DatasetRow>;
  changePrice(user: CurrentUser, id: string, input: { new_price: number; reason: string | null }): Promise<repo.DatasetRow>;
  remove(user: CurrentUser, id: string): Promise<void>;
  /** The dataset, if the user manages it (403 otherwise, 404 when missing); for other modules' writes. */
  requireManaged(ex: Executor, user: CurrentUser, id: string, options?: { forUpdate?: boolean }): Promise<repo.DatasetRow>;
}

export function createDatasetsService(deps: {
  db: Db;
  changes?: ChangeFeed;
  /** A dataset was created or priced above zero (after commit): its Stripe Product is made then. */
  onPriced?: (datasetId: string) => void;
}): DatasetsService {
  const { db, changes, onPriced } = deps;

  async function requireDataset(ex: Executor, id: string, forUpdate = false): Promise<repo.DatasetRow> {
    const dataset = await repo.findDataset(ex, id, { forUpdate });
    if (!dataset) throw new AppError('NOT_FOUND', messages.datasetNotFound);
    return dataset;
  }

  async function requireManaged(ex: Executor, user: CurrentUser, id: string, options: { forUpdate?: boolean } = {}) {
    const dataset = await requireDataset(ex, id, options.forUpdate);
    if (!canManageDataset(user, dataset)) throw new AppError('FORBIDDEN', messages.datasetManageForbidden);
    return dataset;
  }

  async function create(
    user: CurrentUser,
    input: DatasetInput,
    roles: { isPlatformDataset: boolean; assignedUserId: string | null; providerUserId: string | null },
  ) {
    const price = senToDecimalString(toSen(input.price_per_search));
    const created = await inTransaction(db, async (tx) => {
      const dataset = await repo.insertDataset(tx, {
        name: input.name,
        description: input.description,
        pricePerSearch: price,
        createdBy: user.id,
        ...roles,
      });
      await repo.insertPriceHistory(tx, { datasetId: dataset.id, price, reason: INITIAL_PRICE_REASON, changedBy: user.id });
      return dataset;
    });
    if (toSen(price) > 0) onPriced?.(created.id);
    return created;
  }

  async function requireProvider(id: string | undefined, message: string): Promise<string | null> {
    if (!id) return null;
    const user = await findUserById(db, id);
    if (!user || !isDataProvider({ role: user.role, account_type: user.accountType })) {
      throw new AppError('VALIDATION_ERROR', message);
    }
    return user.id;
  }

  return {
    async list(user, query) {
      return repo.listDatasets(db, {
        type: query.type,
        keyword: query.keyword,
        sort: query.sort,
        limit: query.limit,
        offset: query.offset,
        // Platform admins and admins manage every dataset, so "mine" is all of them.
        managedBy: query.managed && !isAdmin(roleOf(user)) && !isPlatformAdmin(roleOf(user)) ? user.id : undefined,
      });
    },

    async get(_user, id) {
      const dataset = await requireDataset(db, id);
      return { dataset, history: await repo.listPriceHistory(db, id) };
    },

    async createAsProvider(user, input) {
      if (!isDataProvider(roleOf(user))) throw new AppError('FORBIDDEN', messages.datasetCreateForbidden);
      return create(user, input, { isPlatformDataset: false, assignedUserId: user.id, providerUserId: user.id });
    },

    async assign(user, input) {
      if (!isPlatformAdmin(roleOf(user)) && !isAdmin(roleOf(user))) throw new AppError('FORBIDDEN', messages.datasetCreateForbidden);
      const assignedUserId = await requireProvider(input.assigned_user_id, messages.editorMustBeProvider);
      const providerUserId = await requireProvider(input.provider_user_id, messages.recipientMustBeProvider);
      // No recipient: platform-managed, platform revenue.
      return create(user, input, { isPlatformDataset: providerUserId === null, assignedUserId, providerUserId });
    },

    async changePrice(user, id, input) {
      const price = senToDecimalString(toSen(input.new_price));
      const updated = await inTransaction(db, async (tx) => {
        // The row lock orders concurrent changes: each closes exactly the row the previous one opened.
        const dataset = await requireManaged(tx, user, id, { forUpdate: true });
        await repo.closeCurrentPrice(tx, id);
        await repo.insertPriceHistory(tx, { datasetId: id, price, reason: input.reason, changedBy: user.id });
        await repo.updateDatasetPrice(tx, id, price);
        return { ...dataset, pricePerSearch: price };
      });
      // Searches from now on are priced at the new price.
      changes?.changed('dataset', id);
      if (toSen(price) > 0) onPriced?.(id);
      return updated;
    },

    async remove(user, id) {
      await inTransaction(db, async (tx) => {
        await requireManaged(tx, user, id, { forUpdate: true });
        // POIs and price history go with it (ON DELETE CASCADE), in the same transaction.
        await repo.deleteDataset(tx, id);
      });
      changes?.changed('dataset', id);
    },

    requireManaged,
  };
}
