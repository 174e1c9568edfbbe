/** A figure card: a label, a big value and an optional note. */
export function StatCard({ label, value, note, testId }: { label: string; value: string; note?: string; testId?: string }) {
  return (
    <div className="rounded-lg border border-gray-200 bg-white p-4">
      <p className="text-sm text-gray-700">{label}</p>
      <p className="mt-1 text-2xl font-bold tabular-nums text-gray-900" data-testid={testId}>
        {value}
      </p>
      {note ? <p className="mt-1 text-xs text-gray-700">{note}</p> : null}
    </div>
  );
}
