import { useMemo } from 'react';
import { AttributionControl, Circle, CircleMarker, GeoJSON, MapContainer, TileLayer, Tooltip, useMapEvents, ZoomControl } from 'react-leaflet';
import type { FeatureCollection } from 'geojson';
import japanOutline from './japan-outline.json';
import 'leaflet/dist/leaflet.css';

export interface MapPoi {
  poi_id: string;
  name: string;
  latitude: number;
  longitude: number;
}

// Japan's outline, cut from the world-atlas package by scripts/japan-outline.mjs: the map works
// with no tile server and no network, and the map screens do not download the whole world.
const JAPAN = japanOutline as FeatureCollection;

const TILE_URL = import.meta.env.VITE_MAP_TILE_URL;
const TILE_ATTRIBUTION = import.meta.env.VITE_MAP_TILE_ATTRIBUTION ?? '';
/** Leaflet's own controls speak English ("Zoom in", the "Leaflet" link): these replace them. */
const ATTRIBUTION_PREFIX = '地図表示: Leaflet ・ 国境データ: Natural Earth';

function ClickToPick({ onPick }: { onPick?: (lat: number, lon: number) => void }) {
  useMapEvents({
    click(e) {
      onPick?.(Math.round(e.latlng.lat * 1e6) / 1e6, Math.round(e.latlng.lng * 1e6) / 1e6);
    },
  });
  return null;
}

/**
 * A Leaflet map: the listed POIs as markers (a click opens the POI), an optional search circle,
 * and an optional click-to-pick of a point. Tiles from VITE_MAP_TILE_URL when configured.
 */
export default function PoiMap({
  pois = [],
  center,
  radius,
  onSelect,
  onPick,
  height = 'h-72',
  label = 'POIの地図',
}: {
  pois?: MapPoi[];
  center?: { latitude: number; longitude: number };
  radius?: number;
  onSelect?: (poiId: string) => void;
  onPick?: (lat: number, lon: number) => void;
  height?: string;
  label?: string;
}) {
  const bounds = useMemo(() => {
    const points = pois.map((p) => [p.latitude, p.longitude] as [number, number]);
    if (center) points.push([center.latitude, center.longitude]);
    return points.length ? points : undefined;
  }, [pois, center]);

  return (
    <div role="region" aria-label={label} className={`${height} w-full overflow-hidden rounded-lg border border-gray-200`}>
      <MapContainer
        key={bounds ? JSON.stringify(bounds.slice(0, 50)) : 'japan'}
        {...(bounds && bounds.length > 1 ? { bounds, boundsOptions: { padding: [24, 24], maxZoom: 16 } } : { center: bounds?.[0] ?? [36.5, 137.5], zoom: bounds ? 14 : 4 })}
        className="h-full w-full bg-sky-50"
        scrollWheelZoom={false}
        zoomControl={false}
        attributionControl={false}
      >
        <ZoomControl position="topleft" zoomInTitle="拡大" zoomOutTitle="縮小" />
        <AttributionControl position="bottomright" prefix={ATTRIBUTION_PREFIX} />
        {TILE_URL ? <TileLayer url={TILE_URL} attribution={TILE_ATTRIBUTION} /> : null}
        <GeoJSON data={JAPAN} style={{ color: '#64748b', weight: 1, fillColor: '#f1f5f9', fillOpacity: 1 }} />
        {center && radius ? <Circle center={[center.latitude, center.longitude]} radius={radius} pathOptions={{ color: '#1d4ed8', weight: 1, fillOpacity: 0.08 }} /> : null}
        {center ? <CircleMarker center={[center.latitude, center.longitude]} radius={5} pathOptions={{ color: '#b91c1c', fillOpacity: 1 }} /> : null}
        {pois.map((p) => (
          <CircleMarker
            key={p.poi_id}
            center={[p.latitude, p.longitude]}
            radius={7}
            pathOptions={{ color: '#1e3a8a', fillColor: '#2563eb', fillOpacity: 0.9, weight: 2 }}
            eventHandlers={{ click: () => onSelect?.(p.poi_id) }}
          >
            <Tooltip>{p.name}</Tooltip>
          </CircleMarker>
        ))}
        <ClickToPick onPick={onPick} />
      </MapContainer>
    </div>
  );
}
