import { Children, cloneElement, isValidElement, type ReactElement, type ReactNode } from 'react';

export const inputClass =
  'mt-1 block w-full rounded-md border border-gray-400 px-3 py-2 text-sm focus:border-blue-600 focus:outline-none focus:ring-2 focus:ring-blue-600 aria-[invalid=true]:border-red-600';

type ControlProps = { id?: string; 'aria-describedby'?: string; 'aria-invalid'?: unknown };

/**
 * Ties the field's control (the child whose id is the field's) to its hint and error: the error is
 * read with the field (aria-describedby, error first) and marks it invalid (aria-invalid), whatever
 * the form passes itself. Other children (a group of radios) are left as they are.
 */
function wireControl(children: ReactNode, id: string, hintId?: string, errorId?: string): ReactNode {
  if (Children.count(children) !== 1 || !isValidElement(children)) return children;
  const control = children as ReactElement<ControlProps>;
  if (control.props.id !== id) return children;
  const own = control.props['aria-describedby']?.split(/\s+/).filter(Boolean) ?? [];
  const describedBy = [...new Set([errorId, ...own, hintId].filter((v): v is string => !!v))].join(' ');
  return cloneElement(control, {
    'aria-describedby': describedBy || undefined,
    'aria-invalid': errorId ? true : control.props['aria-invalid'] === true || control.props['aria-invalid'] === 'true' ? true : undefined,
  });
}

/** A labelled form field: label, the control (wired to the hint and error), hint and error. */
export function FormField({
  id,
  label,
  required,
  error,
  hint,
  children,
}: {
  id: string;
  label: string;
  required?: boolean;
  error?: string;
  hint?: string;
  children: ReactNode;
}) {
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium text-gray-800">
        {label}
        {required ? <span className="ml-1 text-red-700">*</span> : null}
      </label>
      {wireControl(children, id, hintId, errorId)}
      {hint ? (
        <p id={hintId} className="mt-1 text-xs text-gray-700">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={errorId} role="alert" className="mt-1 text-sm text-red-700">
          {error}
        </p>
      ) : null}
    </div>
  );
}
