import { Construction } from 'lucide-react';
import { messages } from '@poi/shared/messages';
import { PageHeader } from './page-header';

/** A screen whose route, title and guard are real but whose contents a later issue builds. */
export function ComingSoon({ title, description }: { title: string; description?: string }) {
  return (
    <div>
      <PageHeader title={title} description={description} />
      <div className="flex items-start gap-3 rounded-lg border border-gray-200 bg-white p-6 text-gray-800">
        <Construction className="mt-0.5 h-5 w-5 shrink-0 text-amber-700" aria-hidden="true" />
        <div>
          <p className="font-medium">準備中</p>
          <p className="mt-1 text-sm text-gray-700">{messages.comingSoon}</p>
        </div>
      </div>
    </div>
  );
}
