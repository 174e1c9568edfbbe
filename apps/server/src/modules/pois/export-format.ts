import { formatTagCell } from '@poi/shared/tag-cell';
import type { PoiRow } from './pois.repository';
import { csvCell } from '@poi/shared/csv';

export { csvCell };

export const EXPORT_COLUMNS = ['poi_id', 'name', 'latitude', 'longitude', 'address', 'category', 'description', 'phone', 'website', 'image_url', 'tags'] as const;

export function csvHeader(): string {
  return `\uFEFF${EXPORT_COLUMNS.join(',')}\r\n`;
}

export function csvRow(p: PoiRow): string {
  const cells = [p.id, p.name, p.latitude, p.longitude, p.address, p.category, p.description, p.phone, p.website, p.imageUrl, formatTagCell(p.tags)];
  return `${cells.map(csvCell).join(',')}\r\n`;
}

export function geoJsonFeature(p: PoiRow): string {
  return JSON.stringify({
    type: 'Feature',
    geometry: { type: 'Point', coordinates: [p.longitude, p.latitude] },
    properties: {
      poi_id: p.id,
      name: p.name,
      address: p.address,
      category: p.category,
      description: p.description,
      phone: p.phone,
      website: p.website,
      image_url: p.imageUrl,
      tags: p.tags,
    },
  });
}
