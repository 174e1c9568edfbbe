import { useId, useRef, useState, type KeyboardEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useLocation } from 'react-router';
import { UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE } from '@poi/shared/limits';
import { DataTable } from '../../../components/ui/data-table';
import { ErrorBlock, LoadingBlock } from '../../../components/ui/state-blocks';
import { apiClient } from '../../../lib/api-client';
import { usePageTitle } from '../../../lib/use-page-title';
import { docsKeys } from '../api/keys';
import {
  boundsOf,
  curlExample,
  cursorWalkExample,
  errorsOf,
  fieldsOf,
  headersOf,
  samplesOf,
  javascriptExample,
  publicEndpoints,
  pythonExample,
  successSchemaOf,
  typeLabel,
  type DocsLanguage,
  type Endpoint,
  type ExampleValue,
  type OpenApiDocument,
} from '../openapi-view';
import { DOCS_TEXT, type DocsText } from '../docs-text';
import { PublicPage } from '../../../components/layout/public-page';
import { SearchSamples } from '../components/search-samples';
import { sdkExample } from '../sdk-example';

/**
 * Example values for the parameters the examples use; the names themselves come from the
 * document. The dataset and the key come from environment variables, so a pasted example runs.
 */
const EXAMPLE_VALUES: Record<string, ExampleValue> = {
  dataset_id: { env: 'POI_DATASET_ID' },
  keyword: DOCS_TEXT.ja.exampleKeyword,
  latitude: '35.681236',
  longitude: '139.767125',
  radius: '1000',
  limit: '20',
  // The type-ahead's typed prefix (GET /api/v1/poi/suggest requires q).
  q: 'shibu',
};

const th = 'px-3 py-2 text-left text-xs font-semibold text-gray-700';
const td = 'px-3 py-2 align-top';

function Section({ id, title, children }: { id: string; title: string; children: React.ReactNode }) {
  return (
    <section aria-labelledby={id} className="mt-10">
      <h2 id={id} className="border-b border-gray-200 pb-2 text-xl font-bold text-gray-900">
        {title}
      </h2>
      <div className="mt-4 space-y-3 text-sm leading-relaxed text-gray-800">{children}</div>
    </section>
  );
}

function Code({ children, label }: { children: string; label: string }) {
  return (
    <pre aria-label={label} tabIndex={0} className="overflow-x-auto rounded-md bg-gray-900 p-4 font-mono text-xs leading-relaxed text-gray-100">
      {children}
    </pre>
  );
}

function Examples({ server, endpoint, language, t, notice, named }: { server: string; endpoint: Endpoint; language: DocsLanguage; t: DocsText; notice: boolean; named: (title: string) => string }) {
  const [tab, setTab] = useState<'curl' | 'js' | 'python'>('curl');
  const params = (endpoint.operation.parameters ?? [])
    .filter((p) => p.in === 'query' && EXAMPLE_VALUES[p.name])
    .map((p) => [p.name, EXAMPLE_VALUES[p.name]!] as [string, ExampleValue]);
  const input = { server, path: endpoint.path, params, language };
  const tabs = [
    { id: 'curl', label: 'curl', code: curlExample(input) },
    { id: 'js', label: 'JavaScript', code: javascriptExample(input) },
    { id: 'python', label: 'Python', code: pythonExample(input) },
  ] as const;
  const current = tabs.find((t) => t.id === tab)!;
  const baseId = useId();
  const list = useRef<HTMLDivElement>(null);
  // WAI-ARIA tabs: one Tab stop for the list; ← → move and select, Home/End jump.
  const onKey = (e: KeyboardEvent) => {
    const i = tabs.findIndex((t) => t.id === tab);
    const next = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[e.key];
    if (next === undefined) return;
    e.preventDefault();
    const target = tabs[(next + tabs.length) % tabs.length]!;
    setTab(target.id);
    list.current?.querySelector<HTMLElement>(`#${CSS.escape(`${baseId}-${target.id}`)}`)?.focus();
  };
  return (
    <div>
      {notice ? (
        <div className="mb-3 rounded-md border border-blue-200 bg-blue-50 p-3 text-sm text-gray-900" data-testid="examples-env">
          <p className="font-medium">{t.envTitle}</p>
          <ul className="mt-1 list-disc space-y-1 pl-5">
            <li>{t.envKey}</li>
            <li>{t.envDataset}</li>
          </ul>
          <p className="mt-1 break-all">{t.envExample}</p>
        </div>
      ) : null}
      <div ref={list} role="tablist" aria-label={named(t.tabsLabel)} onKeyDown={onKey} className="flex gap-1 border-b border-gray-200">
        {tabs.map((t) => (
          <button
            key={t.id}
            id={`${baseId}-${t.id}`}
            type="button"
            role="tab"
            aria-selected={tab === t.id}
            aria-controls={`${baseId}-panel`}
            tabIndex={tab === t.id ? 0 : -1}
            onClick={() => setTab(t.id)}
            className={`min-h-11 rounded-t-md px-4 py-2 text-sm font-medium ${tab === t.id ? 'border border-b-white border-gray-200 bg-white text-blue-800' : 'text-gray-700 hover:text-gray-900'}`}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${baseId}-panel`} aria-labelledby={`${baseId}-${tab}`} className="mt-2">
        <Code label={named(t.exampleLabel(current.label))}>{current.code}</Code>
      </div>
    </div>
  );
}

/**
 * The sections of one public operation. The first keeps the plain ids and titles the table of
 * contents links to; the others (the suggest) are named after their path's last segment
 * (#endpoint-suggest, 「応答例(suggest)」), so ids, headings and landmarks stay unique.
 */
function EndpointDocs({ doc, endpoint, language, t, first }: { doc: OpenApiDocument; endpoint: Endpoint; language: DocsLanguage; t: DocsText; first: boolean }) {
  const { operation } = endpoint;
  const suffix = first ? '' : (endpoint.path.split('/').pop() ?? '');
  const sid = (id: string) => (suffix ? `${id}-${suffix}` : id);
  const named = (title: string) => (!suffix ? title : language === 'en' ? `${title} (${suffix})` : `${title}(${suffix})`);
  // Paging and the parameter rules describe the search's own parameters.
  const isSearch = endpoint.path.endsWith('/poi/search');
  const server = doc.servers?.[0]?.url ?? window.location.origin;
  const fields = fieldsOf(successSchemaOf(operation));
  return (
    <>
      <Section id={sid('endpoint')} title={named(t.sections.endpoint)}>
        <p>
          <code className="rounded bg-gray-100 px-2 py-1 font-mono font-semibold">
            {endpoint.method} {endpoint.path}
          </code>
        </p>
        <p className="font-medium">{operation.summary}</p>
        {operation.description ? <p>{operation.description}</p> : null}
      </Section>

      <Section id={sid('parameters')} title={named(t.sections.parameters)}>
        <DataTable
          className="overflow-x-auto rounded-lg border border-gray-200" tableClassName="min-w-full divide-y divide-gray-200" headClassName="bg-gray-50"
          rows={operation.parameters ?? []}
          rowKey={(p) => `${p.in}-${p.name}`}
          columns={[
            { header: t.columns.name, headerClassName: th, className: `${td} font-mono font-semibold`, cell: (p) => p.name },
            { header: t.columns.type, headerClassName: th, className: `${td} whitespace-nowrap font-mono text-xs`, cell: (p) => typeLabel(p.schema) },
            { header: t.columns.required, headerClassName: th, className: `${td} whitespace-nowrap`, cell: (p) => (p.required ? t.required : t.optional) },
            { header: t.columns.bounds, headerClassName: th, className: td, cell: (p) => boundsOf(p.schema, language) },
            { header: t.columns.description, headerClassName: th, className: td, cell: (p) => p.description ?? p.schema?.description ?? '' },
          ]}
        />
      </Section>

      <Section id={sid('response')} title={named(t.sections.response)}>
        <p>{operation.responses?.['200']?.description}</p>
        <DataTable
          className="overflow-x-auto rounded-lg border border-gray-200" tableClassName="min-w-full divide-y divide-gray-200" headClassName="bg-gray-50"
          rows={fields}
          rowKey={(f) => f.path}
          columns={[
            { header: t.columns.field, headerClassName: th, className: `${td} break-all font-mono text-xs`, cell: (f) => f.path },
            { header: t.columns.type, headerClassName: th, className: `${td} whitespace-nowrap font-mono text-xs`, cell: (f) => f.type },
            { header: t.columns.description, headerClassName: th, className: td, cell: (f) => f.description },
          ]}
        />
      </Section>

      <Section id={sid('errors')} title={named(t.sections.errors)}>
        <p>{t.errorsIntro}</p>
        <DataTable
          className="overflow-x-auto rounded-lg border border-gray-200" tableClassName="min-w-full divide-y divide-gray-200" headClassName="bg-gray-50"
          rows={errorsOf(operation)}
          rowKey={(e) => String(e.status)}
          columns={[
            { header: t.columns.status, headerClassName: th, className: `${td} font-mono`, cell: (e) => e.status },
            { header: t.columns.code, headerClassName: th, className: `${td} font-mono text-xs`, cell: (e) => e.code },
            { header: t.columns.when, headerClassName: th, className: td, cell: (e) => e.description },
          ]}
        />
      </Section>

      <Section id={sid('headers')} title={named(t.sections.headers)}>
        <DataTable
          className="overflow-x-auto rounded-lg border border-gray-200" tableClassName="min-w-full divide-y divide-gray-200" headClassName="bg-gray-50"
          rows={headersOf(operation, language)}
          rowKey={(h) => h.name}
          columns={[
            { header: t.columns.header, headerClassName: th, className: `${td} whitespace-nowrap font-mono text-xs font-semibold`, cell: (h) => h.name },
            { header: t.columns.sentWith, headerClassName: th, className: `${td} whitespace-nowrap font-mono text-xs`, cell: (h) => h.statuses.join(', ') },
            { header: t.columns.description, headerClassName: th, className: td, cell: (h) => h.description },
          ]}
        />
        <p>{t.corsNote}</p>
      </Section>

      <Section id={sid('samples')} title={named(t.sections.samples)}>
        {samplesOf(operation).map((sample) => (
          <div key={`${sample.status}-${sample.name}`}>
            <h3 className="mb-1 font-semibold text-gray-900">
              <span className="mr-2 font-mono">{sample.status}</span>
              {sample.summary}
            </h3>
            <Code label={named(t.sampleLabel(sample.status, sample.summary))}>{sample.json}</Code>
          </div>
        ))}
      </Section>

      {isSearch ? (
      <Section id={sid('paging')} title={named(t.sections.paging)}>
        <p>{t.pagingIntro}</p>
        <ul className="list-disc space-y-1 pl-6">
          <li>{t.pagingOffset}</li>
          <li>{t.pagingCursor}</li>
        </ul>
        <Code label={named(t.cursorExampleLabel)}>
          {cursorWalkExample({ server, path: endpoint.path, params: [['dataset_id', { env: 'POI_DATASET_ID' }], ['keyword', t.exampleKeyword]], language })}
        </Code>
      </Section>
      ) : null}

      {isSearch ? (
      <Section id={sid('rules')} title={named(t.sections.rules)}>
        <ul className="list-disc space-y-1 pl-6">
          {t.rules.map((rule, i) => (
            <li key={i}>{rule}</li>
          ))}
        </ul>
      </Section>
      ) : null}

      <Section id={sid('examples')} title={named(t.sections.examples)}>
        <Examples server={server} endpoint={endpoint} language={language} t={t} notice={first} named={named} />
        {endpoint.path.endsWith('/poi/search') ? <SearchSamples server={server} path={endpoint.path} language={language} /> : null}
      </Section>
    </>
  );
}

/** /docs/api: the public API reference, rendered from the server's /openapi.json; no top bar or side menu. */
export function DocsPage() {
  // /docs/api?lang=en: the same reference in English, from the English OpenAPI document.
  const language: DocsLanguage = new URLSearchParams(useLocation().search).get('lang') === 'en' ? 'en' : 'ja';
  const t = DOCS_TEXT[language];
  usePageTitle(t.pageTitle);
  const spec = useQuery({
    queryKey: docsKeys.openapi(language),
    queryFn: async () => (await apiClient.get<OpenApiDocument>(language === 'en' ? '/openapi.json?lang=en' : '/openapi.json')).data,
    staleTime: Infinity,
  });
  const schemes = spec.data?.components?.securitySchemes ?? {};
  const headerScheme = Object.values(schemes).find((s) => s.type === 'apiKey');

  return (
    <PublicPage>
      <div lang={language}>
        <p className="mb-4 text-right text-sm">
          <a href={t.switchTo.href} lang={t.switchTo.lang} hrefLang={t.switchTo.lang} className="inline-flex min-h-11 items-center text-blue-800 underline">
            {t.switchTo.label}
          </a>
        </p>
        <h1 className="text-3xl font-bold text-gray-900">{t.heading}</h1>
        <p className="mt-3 text-gray-800">{t.intro}</p>
        <nav aria-label={t.tocLabel} className="mt-6 rounded-lg border border-gray-200 bg-gray-50 p-4 text-sm">
          <ul className="flex flex-wrap gap-x-5 gap-y-1">
            {Object.entries(t.toc).map(([id, label]) => (
              <li key={id}>
                <a href={`#${id}`} className="inline-flex min-h-6 items-center text-blue-800 underline">
                  {label}
                </a>
              </li>
            ))}
            {/* The other operations (the suggest), each from its own endpoint section. */}
            {spec.data
              ? publicEndpoints(spec.data)
                  .slice(1)
                  .map((e) => (
                    <li key={e.path}>
                      <a href={`#endpoint-${e.path.split('/').pop() ?? ''}`} className="inline-flex min-h-6 items-center font-mono text-blue-800 underline">
                        {e.method} {e.path}
                      </a>
                    </li>
                  ))
              : null}
          </ul>
        </nav>

        <Section id="auth" title={t.sections.auth}>
          <p>{t.authIntro}</p>
          <ul className="list-disc space-y-1 pl-6">
            <li>
              <code className="font-mono">
                {headerScheme?.name ?? 'X-API-Key'}: {t.authKeyValue}
              </code>
            </li>
            <li>
              <code className="font-mono">Authorization: Bearer {t.authKeyValue}</code>
            </li>
          </ul>
          <p>{t.authRules}</p>
        </Section>

        {spec.isPending ? <LoadingBlock label={t.loading} /> : null}
        {spec.isError ? <ErrorBlock message={t.loadFailed} onRetry={() => void spec.refetch()} /> : null}
        {spec.data
          ? publicEndpoints(spec.data).map((e, i) => <EndpointDocs key={`${e.method} ${e.path}`} doc={spec.data} endpoint={e} language={language} t={t} first={i === 0} />)
          : null}

        <Section id="rate-limits" title={t.sections.rateLimits}>
          <p>{t.rateLimitsIntro(UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE)}</p>
          <ul className="list-disc space-y-1 pl-6">
            {t.rateHeaders.map(([header, meaning]) => (
              <li key={header}>
                <code className="font-mono">{header}</code>: {meaning}
              </li>
            ))}
          </ul>
          <p>{t.rateRetry}</p>
        </Section>

        <Section id="billing" title={t.sections.billing}>
          <ul className="list-disc space-y-1 pl-6">
            {t.billing.map((item, i) => (
              <li key={i}>{item}</li>
            ))}
          </ul>
        </Section>

        <Section id="sdk" title="TypeScript SDK">
          <p>{t.sdkIntro}</p>
          <ul className="list-disc space-y-1 pl-6">
            {t.sdkItems.map((item, i) => (
              <li key={i}>{item}</li>
            ))}
          </ul>
          <Code label={t.sdkExampleLabel}>{sdkExample(spec.data?.servers?.[0]?.url ?? window.location.origin, language)}</Code>
          <p>{t.sdkRun}</p>
        </Section>
      </div>
    </PublicPage>
  );
}
