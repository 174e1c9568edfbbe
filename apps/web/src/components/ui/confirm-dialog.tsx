import { Button } from './button';
import { Modal } from './modal';

/** An in-app confirmation (never window.confirm). */
export function ConfirmDialog({
  title,
  message,
  confirmLabel,
  busy,
  onConfirm,
  onCancel,
}: {
  title: string;
  message: string;
  confirmLabel: string;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <Modal
      title={title}
      onClose={onCancel}
      footer={
        <>
          {/* aria-disabled, not disabled, while busy: a focused button that becomes disabled drops focus to <body>. */}
          <Button variant="secondary" onClick={() => !busy && onCancel()} aria-disabled={busy || undefined}>
            キャンセル
          </Button>
          <Button variant="danger" onClick={() => !busy && onConfirm()} aria-disabled={busy || undefined}>
            {busy ? '処理中...' : confirmLabel}
          </Button>
        </>
      }
    >
      <p className="whitespace-pre-line text-sm text-gray-800">{message}</p>
    </Modal>
  );
}
