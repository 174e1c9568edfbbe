import { sql } from 'drizzle-orm';
import { bigserial, boolean, check, customType, doublePrecision, index, uniqueIndex, integer, numeric, smallint, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users } from './users';

export const datasets = pgTable(
  'datasets',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    description: text('description'),
    /** Yen, exact: numeric(10,2) read as a string and handled in integer hundredths. */
    pricePerSearch: numeric('price_per_search', { precision: 10, scale: 2 }).notNull(),
    isPlatformDataset: boolean('is_platform_dataset').notNull(),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    /** The POI editor chosen by a platform admin (a data provider). */
    assignedUserId: uuid('assigned_user_id').references(() => users.id, { onDelete: 'set null' }),
    /** The revenue recipient (a data provider); null means platform revenue. */
    providerUserId: uuid('provider_user_id').references(() => users.id, { onDelete: 'set null' }),
    stripeProductId: text('stripe_product_id'),
    stripeMeterId: text('stripe_meter_id'),
    poiCount: integer('poi_count').notNull().default(0),
    /** The name and the description, each folded as POI text is (search-fold.ts): what list keywords match. */
    searchText: text('search_text').notNull().default(''),
    /**
     * The distinct characters and 2-character substrings of search_text: serve 1- and
     * 2-character keywords through a GIN index, which trigrams cannot.
     */
    searchGrams: text('search_grams').array().notNull().default(sql`'{}'::text[]`),
    /** The folding search_text and search_grams were written with (as pois.search_version; 0 = rewrite). */
    searchVersion: smallint('search_version').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // The list's orders, each ending with its dataset_id tie-breaker (read backwards for
    // descending), then the columns of the type filters, so a deep page is found in the index
    // alone (index-only scan) before its rows are read.
    index('datasets_created_idx').on(t.createdAt, t.id, t.isPlatformDataset, t.pricePerSearch),
    index('datasets_created_by_idx').on(t.createdBy),
    index('datasets_assigned_idx').on(t.assignedUserId),
    index('datasets_name_idx').on(t.name, t.id, t.isPlatformDataset, t.pricePerSearch),
    index('datasets_price_idx').on(t.pricePerSearch, t.id, t.isPlatformDataset),
    index('datasets_search_text_trgm_idx').using('gin', t.searchText.op('gin_trgm_ops')),
    index('datasets_search_grams_idx').using('gin', t.searchGrams),
    check('datasets_price_range', sql`${t.pricePerSearch} >= 0 AND ${t.pricePerSearch} <= 1000`),
  ],
);

export const datasetPriceHistory = pgTable(
  'dataset_price_history',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    datasetId: uuid('dataset_id')
      .notNull()
      .references(() => datasets.id, { onDelete: 'cascade' }),
    price: numeric('price', { precision: 10, scale: 2 }).notNull(),
    effectiveFrom: timestamp('effective_from', { withTimezone: true }).notNull().defaultNow(),
    effectiveUntil: timestamp('effective_until', { withTimezone: true }),
    reason: text('reason'),
    changedBy: uuid('changed_by').references(() => users.id, { onDelete: 'set null' }),
  },
  (t) => [
    index('dataset_price_history_dataset_idx').on(t.datasetId, t.effectiveFrom),
    // At most one price in force per dataset.
    uniqueIndex('dataset_price_history_current_idx').on(t.datasetId).where(sql`${t.effectiveUntil} IS NULL`),
  ],
);

/** earthdistance's earth type (a cube); read back as its text form, never sent by the application. */
const earth = customType<{ data: string }>({ dataType: () => 'earth' });

export const pois = pgTable(
  'pois',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    datasetId: uuid('dataset_id')
      .notNull()
      .references(() => datasets.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    latitude: doublePrecision('latitude').notNull(),
    longitude: doublePrecision('longitude').notNull(),
    address: text('address'),
    category: text('category'),
    description: text('description'),
    phone: text('phone'),
    website: text('website'),
    imageUrl: text('image_url'),
    tags: text('tags').array().notNull().default(sql`'{}'::text[]`),
    /**
     * What keywords match: the name, address, category and tags, each folded by
     * @poi/shared/search-fold (one run of letters per field, space-separated), then the name's
     * reading in katakana, its romaji and the English of its loanwords (search-columns.ts).
     */
    searchText: text('search_text').notNull(),
    /** Character bigrams of search_text: serves 2-character keywords, which trigrams cannot. */
    searchBigrams: text('search_bigrams').array().notNull(),
    /** The folded name alone: a keyword search without a point ranks exact, then prefix matches of it first. */
    searchName: text('search_name').notNull().default(''),
    /**
     * The tags folded as keywords are (distinct): the search's `tags` filter (AND, whole tags).
     * NULL for rows written before migration 0022 until the back-fill rewrites them.
     */
    searchTags: text('search_tags').array(),
    /** The category folded as keywords are (NULL without one): the search's `category` filter. */
    searchCategory: text('search_category'),
    /**
     * Which folding wrote the search columns (SEARCH_FOLD_VERSION); 0 = not yet, or written before
     * the readings dictionary was loaded. The back-fill job (search-backfill.ts) rewrites such rows.
     */
    searchVersion: smallint('search_version').notNull().default(0),
    /**
     * poi_earth(latitude, longitude), stored: the GiST index, the exact distance filter and the
     * KNN ordering then read it instead of recomputing ll_to_earth for every candidate row.
     */
    earth: earth('earth')
      .notNull()
      .generatedAlwaysAs(sql`poi_earth(latitude, longitude)`),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check('pois_latitude_range', sql`${t.latitude} BETWEEN -90 AND 90`),
    check('pois_longitude_range', sql`${t.longitude} BETWEEN -180 AND 180`),
    index('pois_dataset_created_idx').on(t.datasetId, t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
    index('pois_search_text_trgm_idx').using('gin', t.searchText.op('gin_trgm_ops')),
    index('pois_search_bigrams_idx').using('gin', t.searchBigrams),
    index('pois_dataset_search_name_idx').on(t.datasetId, t.searchName.op('text_pattern_ops')),
    index('pois_search_stale_idx').on(t.id).where(sql`${t.searchVersion} < 1`),
    index('pois_search_tags_idx').using('gin', t.searchTags),
    index('pois_dataset_search_category_idx')
      .on(t.datasetId, t.searchCategory, t.createdAt.desc(), t.id.desc())
      .where(sql`${t.searchCategory} IS NOT NULL`),
    index('pois_search_tags_stale_idx').on(t.id).where(sql`${t.searchTags} IS NULL`),
    // The point as a box of ±1 µm, INCLUDE (dataset_id, id, earth): migration 0018 (hand-written:
    // drizzle cannot express INCLUDE). Why the box: the migration's comment.
    index('pois_earth_idx').using('gist', sql`cube_enlarge(${t.earth}, 1e-6, 3)`),
  ],
);
