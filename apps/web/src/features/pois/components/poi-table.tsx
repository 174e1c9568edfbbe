import type { ReactNode } from 'react';
import { formatCoordinate } from '@poi/shared/format';
import type { Poi } from '@poi/shared/schemas/pois';
import { DataTable, type Column } from '../../../components/ui/data-table';

/** A POI's latitude and longitude as one line of text. */
export const PoiCoordinates = ({ poi }: { poi: Poi }) => (
  <>
    {formatCoordinate(poi.latitude)}, {formatCoordinate(poi.longitude)}
  </>
);

/** The card's latitude/longitude term (inside the card's `<dl>`). */
export const PoiCoordinatesTerm = ({ poi }: { poi: Poi }) => (
  <>
    <dt className="text-gray-700">緯度・経度</dt>
    <dd className="font-mono text-xs leading-5 text-gray-800">
      <PoiCoordinates poi={poi} />
    </dd>
  </>
);

interface PoiTableProps {
  pois: readonly Poi[];
  caption: string;
  columns: Array<Column<Poi>>;
  /** The previous page's rows shown while the next one loads: dimmed. */
  stale: boolean;
  className: string;
  tableClassName: string;
  cards: {
    label: string;
    breakpoint?: 'md' | 'lg';
    /** The card's terms after its address. */
    terms: (poi: Poi) => ReactNode;
    actions: (poi: Poi) => ReactNode;
  };
}

/** A list of POIs: the table on wide screens, cards (name, address, the screen's own terms, actions) on narrow ones. */
export function PoiTable({ pois, caption, columns, stale, className, tableClassName, cards }: PoiTableProps) {
  const dim = stale ? 'opacity-60' : '';
  return (
    <DataTable
      caption={caption}
      rows={pois}
      rowKey={(poi) => poi.poi_id}
      className={className}
      tableClassName={tableClassName}
      headClassName="bg-gray-50 text-left text-xs font-semibold text-gray-700"
      bodyClassName={`divide-y divide-gray-100 ${dim}`}
      columns={columns}
      mobile={{
        label: cards.label,
        breakpoint: cards.breakpoint,
        className: `space-y-3 ${dim}`,
        itemClassName: 'rounded-md border border-gray-200 p-3',
        render: (poi) => (
          <>
            <p className="break-words font-medium text-gray-900">{poi.name}</p>
            <dl className="mt-2 grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-1 text-sm">
              <dt className="text-gray-700">住所</dt>
              <dd className="break-words text-gray-800">{poi.address || '-'}</dd>
              {cards.terms(poi)}
            </dl>
            <div className="mt-2 flex flex-wrap gap-2">{cards.actions(poi)}</div>
          </>
        ),
      }}
    />
  );
}
