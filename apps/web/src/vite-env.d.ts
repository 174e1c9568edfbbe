/// <reference types="vite/client" />

interface ImportMetaEnv {
  readonly VITE_API_BASE_URL?: string;
}

interface ImportMetaEnv {
  /** Raster tile URL template for maps, e.g. https://tile.example.com/{z}/{x}/{y}.png. Unset: Japan's outline only. */
  readonly VITE_MAP_TILE_URL?: string;
  readonly VITE_MAP_TILE_ATTRIBUTION?: string;
}
