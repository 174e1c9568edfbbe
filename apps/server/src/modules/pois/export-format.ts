import type { PoiRow } from './pois.repository';

export const EXPORT_COLUMNS = ['poi_id', 'name', 'latitude', 'longitude', 'address', 'category', 'description', 'phone', 'website', 'image_url', 'tags'] as const;

/**
 * A CSV cell. Text starting with = + - @ tab or CR is prefixed with ' so a spreadsheet never
 * runs it as a formula (CSV injection); numbers are written as they are.
 */
export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function csvHeader(): string {
  return `\uFEFF${EXPORT_COLUMNS.join(',')}\r\n`;
}

export function csvRow(p: PoiRow): string {
  const cells = [p.id, p.name, p.latitude, p.longitude, p.address, p.category, p.description, p.phone, p.website, p.imageUrl, p.tags.join('|')];
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
