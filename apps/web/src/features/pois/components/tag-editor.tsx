import { useState, type KeyboardEvent } from 'react';
import { X } from 'lucide-react';
import { POI_TAG_MAX, POI_TAGS_MAX } from '@poi/shared/schemas/pois';
import { inputClass } from '../../../components/ui/form-field';

/**
 * Tags as a list of whole tags: Enter or 追加 adds what was typed as one tag (commas and | are
 * part of it), × removes one. Nothing is split or re-joined, so an unchanged form sends back
 * exactly the tags it was given.
 */
export function TagEditor({
  id,
  value,
  onChange,
  invalid,
  describedBy,
}: {
  id: string;
  value: string[];
  onChange: (tags: string[]) => void;
  invalid?: boolean;
  describedBy?: string;
}) {
  const [draft, setDraft] = useState('');
  const add = () => {
    const tag = draft.trim();
    if (!tag) return;
    if (!value.includes(tag)) onChange([...value, tag]);
    setDraft('');
  };
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter' && !e.nativeEvent.isComposing) {
      e.preventDefault();
      add();
    } else if (e.key === 'Backspace' && draft === '' && value.length) {
      onChange(value.slice(0, -1));
    }
  };
  return (
    <div>
      {value.length ? (
        <ul className="mb-2 flex flex-wrap gap-2" aria-label="登録するタグ">
          {value.map((tag) => (
            <li key={tag} className="inline-flex max-w-full items-center gap-1 rounded-full bg-blue-50 py-1 pl-3 pr-1 text-sm text-blue-900">
              <span className="break-all">{tag}</span>
              <button
                type="button"
                onClick={() => onChange(value.filter((t) => t !== tag))}
                aria-label={`タグ「${tag}」を削除`}
                className="inline-flex h-6 w-6 shrink-0 items-center justify-center rounded-full hover:bg-blue-100"
              >
                <X className="h-3.5 w-3.5" aria-hidden="true" />
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <div className="flex gap-2">
        <input
          id={id}
          value={draft}
          maxLength={POI_TAG_MAX}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={onKeyDown}
          onBlur={add}
          disabled={value.length >= POI_TAGS_MAX}
          aria-invalid={invalid}
          aria-describedby={describedBy}
          className={`${inputClass} min-w-0 flex-1`}
        />
        <button
          type="button"
          onClick={add}
          className="mt-1 shrink-0 rounded-md border border-gray-400 px-3 py-2 text-sm font-medium text-gray-900 hover:bg-gray-50"
        >
          追加
        </button>
      </div>
    </div>
  );
}
