import type { Poi } from '@poi/shared/schemas/pois';
import type { PoiRow } from './pois.repository';

export const toPoi = (row: Omit<PoiRow, 'earth' | 'searchText' | 'searchBigrams' | 'searchName' | 'searchVersion' | 'searchTags' | 'searchCategory'>, distance?: number): Poi => ({
  poi_id: row.id,
  dataset_id: row.datasetId,
  name: row.name,
  latitude: row.latitude,
  longitude: row.longitude,
  address: row.address,
  category: row.category,
  description: row.description,
  phone: row.phone,
  website: row.website,
  image_url: row.imageUrl,
  tags: row.tags,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
  ...(distance === undefined ? {} : { distance_m: distance }),
});
