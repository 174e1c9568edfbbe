import type { DatasetFilter } from '@poi/shared/schemas/datasets';

const options: Array<{ value: DatasetFilter; label: string }> = [
  { value: 'all', label: 'すべて' },
  { value: 'paid', label: '有料のみ' },
  { value: 'free', label: '無料のみ' },
  { value: 'platform', label: 'プラットフォーム提供' },
  { value: 'provider', label: 'プロバイダー提供' },
];

export function DatasetFilterRadios({ value, onChange }: { value: DatasetFilter; onChange: (v: DatasetFilter) => void }) {
  return (
    <fieldset className="mb-5">
      <legend className="sr-only">表示するデータセット</legend>
      <div className="flex flex-wrap gap-2">
        {options.map((o) => (
          <label
            key={o.value}
            className={`cursor-pointer rounded-full border px-3 py-1.5 text-sm has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-blue-600 ${
              value === o.value ? 'border-blue-700 bg-blue-700 text-white' : 'border-gray-300 bg-white text-gray-800 hover:bg-gray-50'
            }`}
          >
            <input type="radio" name="dataset-filter" value={o.value} checked={value === o.value} onChange={() => onChange(o.value)} className="sr-only" />
            {o.label}
          </label>
        ))}
      </div>
    </fieldset>
  );
}
