import { useState } from 'react';
import { Check, Copy } from 'lucide-react';
import { copyText } from '../../../lib/browser-files';
import { Button } from '../../../components/ui/button';

/** Copies a text to the clipboard and says so; `label` names what is copied for screen readers. */
export function CopyButton({ text, label, successMessage, onCopied }: { text: string; label: string; successMessage: string; onCopied?: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    if (await copyText(text, { success: successMessage, failure: 'コピーに失敗しました。テキストを選択してコピーしてください' })) {
      setCopied(true);
      onCopied?.();
      setTimeout(() => setCopied(false), 2000);
    }
  };
  return (
    <Button variant="secondary" onClick={copy} aria-label={label} className="shrink-0">
      {copied ? <Check className="h-4 w-4" aria-hidden="true" /> : <Copy className="h-4 w-4" aria-hidden="true" />}
      {copied ? 'コピー済み' : 'コピー'}
    </Button>
  );
}
