// Regenerates apps/web/src/features/pois/components/japan-outline.json, the offline outline the
// console's maps draw when no tile server is configured: Japan (ISO 3166 numeric 392) from
// world-atlas's 1:50m countries, as GeoJSON with coordinates rounded to 0.001° (about 100 m).
// The whole world file is 750 KB (245 KB gzipped); Japan alone is 19 KB (6 KB).
//   node scripts/japan-outline.mjs
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { feature } from 'topojson-client';

const require = createRequire(import.meta.url);
const topology = require('world-atlas/countries-50m.json');
const round = (c) => (Array.isArray(c[0]) ? c.map(round) : [Math.round(c[0] * 1e3) / 1e3, Math.round(c[1] * 1e3) / 1e3]);
const japan = feature(topology, topology.objects.countries).features.filter((f) => f.id === '392');
const out = {
  type: 'FeatureCollection',
  features: japan.map((f) => ({ type: 'Feature', id: f.id, properties: { name: f.properties.name }, geometry: { type: f.geometry.type, coordinates: round(f.geometry.coordinates) } })),
};
const target = fileURLToPath(new URL('../apps/web/src/features/pois/components/japan-outline.json', import.meta.url));
writeFileSync(target, `${JSON.stringify(out)}\n`);
console.log(`wrote ${target}`);
