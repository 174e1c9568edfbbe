import type { FastifyBaseLogger } from 'fastify';
import { toSen } from '@poi/shared/money';
import type { Db } from '../../db/client';
import { findDatasetForProduct, setDatasetProductId } from './payments.repository';
import type { Background } from './stripe-calls';
import type { StripeClient } from './stripe-client';

export interface Products {
  /** Creates the Stripe Product of a paid dataset (after its write committed); never throws. */
  syncDatasetProduct(datasetId: string): void;
}

export interface ProductsDeps {
  db: Db;
  stripe?: StripeClient;
  log: Pick<FastifyBaseLogger, 'warn'>;
  /** The creation runs here, so idle() waits for it. */
  background: Pick<Background, 'run'>;
}

/** The Stripe Products of paid datasets, created in the background once a dataset has a price. */
export function createProducts(deps: ProductsDeps): Products {
  const { db, stripe, log, background } = deps;

  async function createProduct(s: StripeClient, datasetId: string) {
    const dataset = await findDatasetForProduct(db, datasetId);
    if (!dataset || dataset.productId || toSen(dataset.price) <= 0) return;
    const product = await s.products.create({ name: dataset.name, metadata: { dataset_id: dataset.id } }, { idempotencyKey: `dataset:${dataset.id}:product` });
    await setDatasetProductId(db, dataset.id, product.id);
  }

  return {
    syncDatasetProduct(datasetId) {
      if (!stripe) return;
      background.run(createProduct(stripe, datasetId).catch((err) => log.warn({ err, datasetId }, 'Stripe product not created for the dataset')));
    },
  };
}
