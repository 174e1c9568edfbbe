import type { ReactNode } from 'react';
import { Button } from './button';
import { Modal } from './modal';

/** A modal holding one form: cancel and submit in the footer, the server's error inline. */
export function FormModal({
  title,
  formId,
  submitLabel,
  submitting,
  error,
  onClose,
  size,
  children,
}: {
  title: string;
  formId: string;
  submitLabel: string;
  submitting: boolean;
  error: string | null;
  onClose: () => void;
  size?: 'md' | 'lg';
  children: ReactNode;
}) {
  return (
    <Modal
      title={title}
      onClose={onClose}
      size={size}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            キャンセル
          </Button>
          {/* Not `disabled` while submitting: a focused button that becomes disabled drops focus to <body>. */}
          <Button type="submit" form={formId} aria-disabled={submitting || undefined} onClick={(e) => submitting && e.preventDefault()}>
            {submitLabel}
          </Button>
        </>
      }
    >
      {children}
      {error ? (
        <p role="alert" className="mt-4 whitespace-pre-line rounded-md bg-red-50 p-3 text-sm text-red-800">
          {error}
        </p>
      ) : null}
    </Modal>
  );
}
