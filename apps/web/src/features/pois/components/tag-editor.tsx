import { useRef, useState, type ClipboardEvent, type KeyboardEvent } from 'react';
import { X } from 'lucide-react';
import { POI_TAG_MAX, POI_TAGS_MAX } from '@poi/shared/schemas/pois';
import { inputClass } from '../../../components/ui/form-field';

/** What ends a tag while typing: a comma (half or full width), 「、」 or a line break (pasted lists). */
const SEPARATOR = /[,，、\r\n]/;

/** `tags` plus the new ones not there yet, in order, up to POI_TAGS_MAX. */
function withTags(tags: string[], added: string[]): string[] {
  const next = [...tags];
  for (const tag of added) if (!next.includes(tag) && next.length < POI_TAGS_MAX) next.push(tag);
  return next;
}

/**
 * Tags as removable chips. Typing a comma (「,」 or 「，」), 「、」 or Enter commits what was typed
 * as a tag (trimmed; an empty or repeated tag is ignored); a pasted list is split the same way;
 * Backspace in the empty field removes the last chip, and each chip has its own remove button.
 * Only what is typed is split: tags the POI already has (an import may hold 「a,b」 as one tag)
 * stay whole, so an unchanged form sends back exactly the tags it was given. While an IME is
 * composing nothing is split; its committed text is.
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
  const input = useRef<HTMLInputElement>(null);
  /** Commits every finished piece of `text`; the piece after the last separator stays typed unless `all`. */
  const commit = (text: string, all: boolean) => {
    const pieces = text.split(SEPARATOR);
    const rest = all ? '' : pieces.pop()!;
    const added = pieces.map((t) => t.trim()).filter(Boolean);
    if (all && rest.trim()) added.push(rest.trim());
    const next = withTags(value, added);
    if (next.length !== value.length) onChange(next);
    setDraft(rest);
  };
  const add = () => commit(draft, true);
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.nativeEvent.isComposing) return;
    if (e.key === 'Enter') {
      e.preventDefault();
      add();
    } else if (e.key === 'Backspace' && draft === '' && value.length) {
      onChange(value.slice(0, -1));
    }
  };
  const onPaste = (e: ClipboardEvent<HTMLInputElement>) => {
    const pasted = e.clipboardData.getData('text');
    if (!SEPARATOR.test(pasted)) return;
    e.preventDefault();
    const field = e.currentTarget;
    const start = field.selectionStart ?? draft.length;
    const end = field.selectionEnd ?? draft.length;
    commit(draft.slice(0, start) + pasted + draft.slice(end), true);
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
                onClick={() => {
                  onChange(value.filter((t) => t !== tag));
                  // The button goes with its chip: the keyboard continues in the field.
                  input.current?.focus();
                }}
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
          ref={input}
          id={id}
          value={draft}
          maxLength={POI_TAG_MAX}
          onChange={(e) => {
            const text = e.target.value;
            if ((e.nativeEvent as InputEvent).isComposing || !SEPARATOR.test(text)) setDraft(text);
            else commit(text, false);
          }}
          onCompositionEnd={(e) => {
            if (SEPARATOR.test(e.currentTarget.value)) commit(e.currentTarget.value, false);
          }}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
          enterKeyHint="done"
          autoComplete="off"
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
