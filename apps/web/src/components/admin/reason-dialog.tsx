import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { FormModal } from '../ui/form-modal';
import { FormField, inputClass } from '../ui/form-field';
import { getFieldErrorMessage } from '../../lib/api-client';

export const REASON_REQUIRED = '理由を入力してください';
export const REASON_TOO_LONG = '理由は500文字以内で入力してください';

/** The reason of an admin action: required, at most 500 characters (as the server checks). */
export function reasonError(reason: string): string | undefined {
  const trimmed = reason.trim();
  if (!trimmed) return REASON_REQUIRED;
  if (trimmed.length > 500) return REASON_TOO_LONG;
  return undefined;
}

/**
 * Confirmation of a change an administrator makes (suspend, reject, delete…): what it does, any
 * fields of its own, and a required reason that goes to the audit log. The server's refusal is
 * shown inline and the dialog stays open.
 */
export function ReasonDialog({
  title,
  description,
  submitLabel,
  onSubmit,
  onClose,
  validate,
  children,
}: {
  title: string;
  description: ReactNode;
  submitLabel: string;
  onSubmit: (reason: string) => Promise<unknown>;
  onClose: () => void;
  /** Checks the dialog's own fields (showing their errors); false keeps it from submitting. */
  validate?: () => boolean;
  children?: ReactNode;
}) {
  const formId = useId();
  const [reason, setReason] = useState('');
  const [touched, setTouched] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const invalid = touched ? reasonError(reason) : undefined;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    const fieldsValid = validate ? validate() : true;
    if (reasonError(reason) || !fieldsValid || submitting) return;
    setSubmitting(true);
    setError(null);
    try {
      await onSubmit(reason.trim());
      onClose();
    } catch (err) {
      setError(getFieldErrorMessage(err, '操作に失敗しました。しばらくしてから再度お試しください'));
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <FormModal title={title} formId={formId} submitLabel={submitting ? '送信中...' : submitLabel} submitting={submitting} error={error} onClose={onClose}>
      <form id={formId} noValidate onSubmit={(e) => void submit(e)} className="space-y-4">
        <div className="text-sm text-gray-800">{description}</div>
        {children}
        <FormField id={`${formId}-reason`} label="理由(監査ログに記録されます)" required error={invalid}>
          <textarea
            id={`${formId}-reason`}
            rows={3}
            className={inputClass}
            value={reason}
            aria-invalid={invalid ? true : undefined}
            aria-describedby={invalid ? `${formId}-reason-error` : undefined}
            onChange={(e) => setReason(e.target.value)}
            onBlur={() => setTouched(true)}
          />
        </FormField>
      </form>
    </FormModal>
  );
}
