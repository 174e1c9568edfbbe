import { useId, useState, type KeyboardEvent } from 'react';
import { Check, ChevronDown } from 'lucide-react';
import { useDebouncedValue } from '../../lib/use-debounced-value';
import { inputClass } from './form-field';
import { Spinner } from './spinner';

const DEBOUNCE_MS = 250;

/** What a combobox's search answered for a keyword. */
export interface ComboboxResults<T> {
  items: T[] | undefined;
  /** Matches on the server; more than items when the rest needs a narrower keyword. */
  total: number;
  fetching: boolean;
  /** A Japanese message when the search failed. */
  error: string | null;
}

export interface SearchComboboxProps<T> {
  /** The input's id, for the caller's <label htmlFor>. */
  id: string;
  value: T | null;
  onChange: (item: T | null) => void;
  /** Asks the server (a hook: called on every render with the settled keyword; `enabled` while open). */
  useResults: (keyword: string, enabled: boolean) => ComboboxResults<T>;
  keyOf: (item: T) => string;
  labelOf: (item: T) => string;
  detailOf?: (item: T) => string | undefined;
  /** An item not to offer. */
  excludeKey?: string;
  /** When set, a first option meaning "none chosen" (value null). */
  noneLabel?: string;
  /** The listbox's accessible name, e.g. データセットの候補. */
  listLabel: string;
  /** The toggle button's accessible name. */
  toggleLabel: string;
  placeholder?: string;
  /** Hint while more matches exist than were shown. */
  narrowHint: string;
  emptyText: string;
  maxLength?: number;
  describedBy?: string;
  invalid?: boolean;
  disabled?: boolean;
}

type Option<T> = { key: string; item: T | null; label: string; detail?: string };

/**
 * An editable combobox with a listbox popup and list autocomplete (WAI-ARIA APG "combobox"):
 * typing searches on the server (debounced), ↓/↑ move through the options
 * (aria-activedescendant, focus stays in the input), Enter picks, Escape closes and restores
 * the choice (without closing a dialog around it), Tab leaves, Alt+↓, ↓ or a click opens the
 * list. The popup sits in the flow under the input, so dialogs and narrow screens never clip it.
 */
export function SearchCombobox<T>(props: SearchComboboxProps<T>) {
  const { id, value, onChange, useResults, keyOf, labelOf, detailOf, excludeKey, noneLabel, describedBy, invalid, disabled } = props;
  const listId = useId();
  const statusId = useId();
  const textOf = (item: T | null) => (item ? labelOf(item) : (noneLabel ?? ''));
  const keyOfValue = value ? keyOf(value) : null;
  const [open, setOpen] = useState(false);
  const [text, setText] = useState(() => textOf(value));
  /** True once the user has typed: the text is then a search term, not the chosen item's name. */
  const [typed, setTyped] = useState(false);
  const [active, setActive] = useState(0);
  const [shownKey, setShownKey] = useState(keyOfValue);
  if (keyOfValue !== shownKey) {
    // Chosen from outside (a default, a reset): show it.
    setShownKey(keyOfValue);
    setText(textOf(value));
    setTyped(false);
  }

  const term = typed ? text.trim() : '';
  const keyword = useDebouncedValue(term, DEBOUNCE_MS);
  const results = useResults(keyword, open);
  const searching = open && (results.fetching || keyword !== term);

  const options: Array<Option<T>> = [];
  if (noneLabel && !term) options.push({ key: 'none', item: null, label: noneLabel });
  for (const item of results.items ?? []) {
    if (keyOf(item) !== excludeKey) options.push({ key: keyOf(item), item, label: labelOf(item), detail: detailOf?.(item) });
  }
  const activeIndex = options.length ? Math.min(active, options.length - 1) : -1;
  const optionId = (i: number) => `${listId}-option-${i}`;
  const more = results.total - (results.items?.length ?? 0);

  const status = !open
    ? ''
    : results.error
      ? results.error
      : !results.items
        ? '検索中...'
        : options.length === 0
          ? props.emptyText
          : more > 0
            ? `全 ${results.total.toLocaleString('ja-JP')} 件中 ${results.items.length} 件を表示しています。${props.narrowHint}`
            : `${options.length} 件の候補があります`;

  const openList = () => {
    const current = options.findIndex((o) => (o.item ? keyOf(o.item) : null) === keyOfValue);
    setActive(current >= 0 ? current : 0);
    setOpen(true);
  };
  const restore = () => {
    setOpen(false);
    setTyped(false);
    setText(textOf(value));
  };
  const pick = (option: Option<T>) => {
    setOpen(false);
    setTyped(false);
    setText(option.label);
    setShownKey(option.item ? keyOf(option.item) : null);
    onChange(option.item);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    switch (e.key) {
      case 'ArrowDown':
        e.preventDefault();
        if (!open) openList();
        else if (!e.altKey && options.length) setActive((activeIndex + 1) % options.length);
        break;
      case 'ArrowUp':
        e.preventDefault();
        if (!open) openList();
        else if (options.length) setActive((activeIndex - 1 + options.length) % options.length);
        break;
      case 'Enter':
        if (open && activeIndex >= 0) {
          e.preventDefault();
          pick(options[activeIndex]!);
        }
        break;
      case 'Escape':
        if (open || typed) {
          // Closes the list only, not the dialog around the combobox.
          e.preventDefault();
          e.stopPropagation();
          restore();
        }
        break;
      case 'Tab':
        if (open) restore();
        break;
    }
  };

  return (
    <div
      className="relative"
      onBlur={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) restore();
      }}
    >
      {/* The toggle sits beside the input, not over it: an overlapping target is too small (WCAG 2.5.8). */}
      <div className="mt-1 flex items-stretch gap-1">
        <input
          id={id}
          type="text"
          role="combobox"
          aria-expanded={open}
          aria-controls={listId}
          aria-autocomplete="list"
          aria-activedescendant={open && activeIndex >= 0 ? optionId(activeIndex) : undefined}
          aria-describedby={[describedBy, statusId].filter(Boolean).join(' ')}
          aria-invalid={invalid || undefined}
          autoComplete="off"
          disabled={disabled}
          maxLength={props.maxLength}
          value={text}
          placeholder={props.placeholder}
          onChange={(e) => {
            setText(e.target.value);
            setTyped(true);
            setActive(0);
            setOpen(true);
          }}
          onClick={() => (open ? undefined : openList())}
          onKeyDown={onKeyDown}
          className={`${inputClass} mt-0 min-w-0 flex-1`}
        />
        <button
          type="button"
          tabIndex={-1}
          aria-label={props.toggleLabel}
          aria-controls={listId}
          aria-expanded={open}
          disabled={disabled}
          onMouseDown={(e) => e.preventDefault()}
          onClick={() => {
            document.getElementById(id)?.focus();
            if (open) restore();
            else openList();
          }}
          className="flex min-h-10 w-10 shrink-0 items-center justify-center rounded-md border border-gray-300 bg-white text-gray-700 hover:bg-gray-50 disabled:opacity-50"
        >
          {searching ? <Spinner className="h-4 w-4" /> : <ChevronDown className="h-4 w-4" aria-hidden="true" />}
        </button>
      </div>
      <ul
        id={listId}
        role="listbox"
        aria-label={props.listLabel}
        hidden={!open || options.length === 0}
        className="mt-1 max-h-64 overflow-y-auto rounded-md border border-gray-300 bg-white py-1 shadow-lg"
      >
        {options.map((o, i) => {
          const chosen = (o.item ? keyOf(o.item) : null) === keyOfValue;
          return (
            <li
              key={o.key}
              id={optionId(i)}
              role="option"
              aria-selected={i === activeIndex}
              onMouseDown={(e) => e.preventDefault()}
              onClick={() => pick(o)}
              onMouseMove={() => (i === activeIndex ? undefined : setActive(i))}
              ref={i === activeIndex ? (el) => el?.scrollIntoView?.({ block: 'nearest' }) : undefined}
              className={`flex cursor-pointer items-start gap-2 px-3 py-2 text-sm ${i === activeIndex ? 'bg-blue-50 text-blue-950' : 'text-gray-900'}`}
            >
              <Check className={`mt-0.5 h-4 w-4 shrink-0 ${chosen ? 'text-blue-700' : 'invisible'}`} aria-hidden="true" />
              <span className="min-w-0 flex-1 break-words">{o.label}</span>
              {o.detail ? <span className="shrink-0 text-xs text-gray-700">{o.detail}</span> : null}
            </li>
          );
        })}
      </ul>
      <p id={statusId} role="status" className={open ? 'mt-1 text-xs text-gray-700' : 'sr-only'}>
        {status}
      </p>
    </div>
  );
}
