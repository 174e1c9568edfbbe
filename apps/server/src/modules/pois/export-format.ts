import { formatTagCell } from '@poi/shared/tag-cell';
import type { PoiRow } from './pois.repository';
import { csvCell } from '../../lib/csv';

export { csvCell };

export const EXPORT_COLUMNS = ['poi_id', 'name', 'latitude', 'longitude', 'address', 'category', 'description', 'phone', 'website', 'image_url', 'tags'] as const;

/**
 * Content-Disposition for a download named after its dataset: RFC 5987's filename* in UTF-8 for
 * browsers, and an ASCII filename for the rest (the name's ASCII letters, else the dataset id).
 */
export function contentDisposition(fileName: string, fallbackStem: string): string {
  const clean = Array.from(fileName, (c) => (c.charCodeAt(0) < 0x20 || c === '\u007f' || '"\\/:*?<>|'.includes(c) ? '_' : c)).join('');
  const ext = /(\.[a-z]+)+$/i.exec(clean)?.[0] ?? '';
  const asciiStem = clean.slice(0, clean.length - ext.length).replace(/[^\x20-\x7e]/g, '').replace(/[\s_]+/g, '_').replace(/^_+|_+$/g, '');
  const fallback = `${asciiStem || `dataset-${fallbackStem}`}${ext}`;
  const encoded = encodeURIComponent(clean).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

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
