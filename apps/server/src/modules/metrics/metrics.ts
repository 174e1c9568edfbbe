import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, onResponseHookHandler } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Database } from '../../db/client';
import { AppError } from '../../lib/errors';
import type { JobState } from '../../lib/periodic-job';

/*
 * The server's Prometheus metrics (GET /metrics, docs/operations.md "Metrics").
 *
 * Each app has a registry of its own (tests build several apps in one process); the process's
 * own metrics (CPU, memory, event-loop lag, GC) are one registry per process, made on first use,
 * because they describe the process and their collectors (an event-loop delay monitor, a GC
 * observer) cannot be stopped once started.
 *
 * What happens on a hot path is a plain number added to (a search, a suggest, a budget stop) and
 * copied into its counter at scrape time; states other parts keep (the usage meter, the jobs, the
 * search index, the pools, Redis) are read at scrape time. Only the request duration is a
 * prom-client observation per request, on a series made once per route, method and status.
 */

/** Which path answered a public search. */
export type SearchPath = 'cache' | 'index' | 'postgres';
/** Which path answered a suggest. */
export type SuggestPath = 'memory' | 'postgres';

/** The in-memory search index's state as /metrics reads it (SearchIndex.state()). */
interface IndexState {
  enabled: boolean;
  ready: number;
  building: number;
  overBudget: number;
  pois: number;
  memoryBytes: number;
  budgetMb: number;
  lagMs: number | null;
  served: number;
}

/** What is read at scrape time, handed over once the app has made it. */
export interface MetricsSources {
  usage: { pending(): number; oldestPendingAt(): Date | undefined };
  jobs: { list(): JobState[] };
  searchIndex?: { state(): IndexState };
  redis?: { state(): 'ok' | 'degraded' };
  database: Pick<Database, 'poolStats' | 'connectionErrors'>;
}

/** What an import answered (PoisService.importFile's result). */
interface ImportCounts {
  added: number;
  updated: number;
  unchanged: number;
  deleted: number;
  skippedCount: number;
}

export interface Metrics {
  /** The text exposition of every family, and its content type. */
  scrape(): Promise<string>;
  readonly contentType: string;
  /** Times every request by route pattern, method and status (call before any route is added). */
  instrument(app: FastifyInstance): void;
  /** Starts reading the states of the parts below at scrape time. */
  watch(sources: MetricsSources): void;
  searchAnswered(path: SearchPath): void;
  suggestAnswered(path: SuggestPath): void;
  budgetStopped(): void;
  /** The same service, its imports counted and timed. */
  countImports<S extends { importFile(...args: never[]): Promise<ImportCounts> }>(service: S): S;
}

/** Request durations: a search from memory takes well under a millisecond, an import seconds. */
const REQUEST_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const IMPORT_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** The route label of requests no route matched (404s, the console's history fallback). */
const UNMATCHED = 'unmatched';
const USAGE_FLUSH_JOB = 'usage-flush';

let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** One route, method and status of the request histogram: counts per bucket, kept as plain numbers. */
class RequestSeries {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(
    readonly labels: Record<'route' | 'method' | 'status_code', string>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(seconds: number): void {
    const { bounds } = this;
    let i = 0;
    while (i < bounds.length && seconds > bounds[i]!) i += 1;
    if (i < bounds.length) this.counts[i]! += 1;
    this.sum += seconds;
    this.count += 1;
  }
}

/**
 * The request histogram. prom-client's own observe() costs about 0.5 µs (a labels object, a hash
 * string and a lookup per call), measured at 1.5 % of an answer-cache search's server CPU; here an
 * observation is a few comparisons and additions on its series, and the text is written from the
 * series at scrape time. The registry reads a metric through getForPromString() (or get()): both
 * answer the series, in the shape prom-client's Histogram answers (pinned 15.1.3; metrics.test.ts
 * reads the samples back).
 */
class RequestHistogram extends Histogram<'route' | 'method' | 'status_code'> {
  private readonly all: RequestSeries[] = [];
  private readonly bounds: readonly number[];
  private readonly exposedName: string;
  private readonly exposedHelp: string;

  constructor(config: { name: string; help: string; buckets: number[]; registers: Registry[] }) {
    super({ ...config, labelNames: ['route', 'method', 'status_code'] });
    this.bounds = config.buckets;
    this.exposedName = config.name;
    this.exposedHelp = config.help;
  }

  series(route: string, method: string, status: number): RequestSeries {
    const made = new RequestSeries({ route, method, status_code: String(status) }, this.bounds);
    this.all.push(made);
    return made;
  }

  override async get(): ReturnType<Histogram['get']> {
    return this.getForPromString();
  }

  async getForPromString(): ReturnType<Histogram['get']> {
    const bucket = `${this.exposedName}_bucket`;
    const values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }> = [];
    for (const s of this.all) {
      let cumulative = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        cumulative += s.counts[i]!;
        values.push({ labels: { ...s.labels, le: this.bounds[i]! }, value: cumulative, metricName: bucket });
      }
      values.push({ labels: { ...s.labels, le: '+Inf' }, value: s.count, metricName: bucket });
      values.push({ labels: s.labels, value: s.sum, metricName: `${this.exposedName}_sum` });
      values.push({ labels: s.labels, value: s.count, metricName: `${this.exposedName}_count` });
    }
    // prom-client's types declare `type` as an enum it does not export: the string is what it writes.
    return { name: this.exposedName, help: this.exposedHelp, type: 'histogram', values, aggregator: 'sum' } as unknown as Awaited<ReturnType<Histogram['get']>>;
  }

  override reset(): void {
    // Also called by prom-client's constructor, before this class's fields exist.
    for (const s of (this.all as RequestSeries[] | undefined) ?? []) {
      s.counts.fill(0);
      s.sum = 0;
      s.count = 0;
    }
  }
}

type Observer = { observe(seconds: number): void };

export function createMetrics(): Metrics {
  const registry = new Registry();
  const registers = [registry];
  let sources: MetricsSources | undefined;

  const searches: Record<SearchPath, number> = { cache: 0, index: 0, postgres: 0 };
  const suggests: Record<SuggestPath, number> = { memory: 0, postgres: 0 };
  let budgetStops = 0;
  const importRows = { added: 0, updated: 0, unchanged: 0, deleted: 0, skipped: 0 };
  const importFailures = { rejected: 0, error: 0 };

  const requestSeconds = new RequestHistogram({
    name: 'poi_http_request_duration_seconds',
    help: 'Time from receiving a request to the end of its answer, by route pattern (unmatched: no route), method and status code.',
    buckets: REQUEST_BUCKETS,
    registers,
  });
  /** A route's series by method and status, made on first use (no labels object per request). */
  const seriesOf = (route: string) => {
    const byMethod = new Map<string, Map<number, Observer>>();
    return (method: string, status: number): Observer => {
      let byStatus = byMethod.get(method);
      if (!byStatus) byMethod.set(method, (byStatus = new Map()));
      let series = byStatus.get(status);
      if (!series) byStatus.set(status, (series = requestSeconds.series(route, method, status)));
      return series;
    };
  };

  /** A counter whose values live elsewhere, copied in at scrape time. */
  const mirroredCounter = <L extends string>(name: string, help: string, labelNames: readonly L[], read: () => Array<[Partial<Record<L, string>>, number]>) =>
    new Counter({
      name,
      help,
      labelNames,
      registers,
      collect() {
        this.reset();
        for (const [labels, value] of read()) this.inc(labels, value);
      },
    });
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[], read: () => Array<[Partial<Record<L, string>>, number]>) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers,
      collect() {
        this.reset();
        for (const [labels, value] of read()) this.set(labels, value);
      },
    });
  const entries = <K extends string>(counts: Record<K, number>, label: string) => Object.entries(counts).map(([k, v]) => [{ [label]: k }, v as number] as [Record<string, string>, number]);

  mirroredCounter('poi_public_searches_total', 'Public searches answered (GET /api/v1/poi/search), by the path that answered: cache (the answer cache), index (the in-memory index) or postgres.', ['path'], () =>
    entries(searches, 'path'),
  );
  mirroredCounter('poi_public_suggests_total', 'Public suggests answered (GET /api/v1/poi/suggest) with at least one search key, by the path that answered: memory or postgres.', ['path'], () =>
    entries(suggests, 'path'),
  );
  mirroredCounter('poi_budget_stops_total', 'Public searches and suggests refused because a hard-stop budget was reached (402 BUDGET_EXCEEDED).', [], () => [[{}, budgetStops]]);

  gauge('poi_usage_events_buffered', 'Billable searches metered but not yet written to the database.', [], () => [[{}, sources?.usage.pending() ?? 0]]);
  gauge('poi_usage_flush_lag_seconds', 'Age of the oldest billable search not yet written to the database (0 when none waits).', [], () => {
    const oldest = sources?.usage.oldestPendingAt();
    return [[{}, oldest ? Math.max(0, (Date.now() - oldest.getTime()) / 1000) : 0]];
  });
  mirroredCounter('poi_usage_flush_failures_total', 'Failed runs of the usage flush (the events are kept and written by a later run).', [], () => [
    [{}, sources?.jobs.list().find((j) => j.name === USAGE_FLUSH_JOB)?.failures ?? 0],
  ]);

  mirroredCounter('poi_import_rows_total', 'Rows of successful POI imports, by outcome: added, updated, unchanged, deleted (replace mode) or skipped (invalid).', ['outcome'], () =>
    entries(importRows, 'outcome'),
  );
  const importSeconds = new Histogram({ name: 'poi_import_duration_seconds', help: 'Duration of successful POI imports (parsing, validation and the write).', buckets: IMPORT_BUCKETS, registers });
  mirroredCounter('poi_import_failures_total', 'POI imports that failed: rejected (a 4xx: a bad file, no valid row, no permission) or error (anything else).', ['kind'], () =>
    entries(importFailures, 'kind'),
  );

  const index = () => sources?.searchIndex?.state();
  gauge('poi_search_index_enabled', 'Whether the in-memory search index answers searches (1) or not (0: off, or SEARCH_INDEX_MAX_MB=0).', [], () => [[{}, index()?.enabled ? 1 : 0]]);
  gauge('poi_search_index_bytes', 'Memory the in-memory search index uses, its suggest tables included.', [], () => [[{}, index()?.memoryBytes ?? 0]]);
  gauge('poi_search_index_budget_bytes', 'Memory the in-memory search index may use (SEARCH_INDEX_MAX_MB).', [], () => [[{}, (index()?.budgetMb ?? 0) * 1024 * 1024]]);
  gauge('poi_search_index_pois', 'POIs held by the in-memory search index (ready datasets).', [], () => [[{}, index()?.pois ?? 0]]);
  gauge('poi_search_index_datasets', 'Datasets known to the in-memory search index, by state: ready, building (or queued) or over_budget (searched on PostgreSQL).', ['state'], () => {
    const s = index();
    return [
      [{ state: 'ready' }, s?.ready ?? 0],
      [{ state: 'building' }, s?.building ?? 0],
      [{ state: 'over_budget' }, s?.overBudget ?? 0],
    ];
  });
  gauge('poi_search_index_change_log_lag_seconds', 'Time since the in-memory search index last read the search change log (absent before the first read).', [], () => {
    const lag = index()?.lagMs;
    return lag === null || lag === undefined ? [] : [[{}, lag / 1000]];
  });
  mirroredCounter('poi_search_index_served_total', 'Searches the in-memory search index answered since start.', [], () => [[{}, index()?.served ?? 0]]);

  const pools = () => sources?.database.poolStats?.() ?? [];
  gauge('poi_db_pool_clients', 'PostgreSQL pool clients (connections) open, by pool: main or knn (absent on PGlite).', ['pool'], () => pools().map((p) => [{ pool: p.pool }, p.total]));
  gauge('poi_db_pool_idle_clients', 'PostgreSQL pool clients open and idle, by pool (absent on PGlite).', ['pool'], () => pools().map((p) => [{ pool: p.pool }, p.idle]));
  gauge('poi_db_pool_waiting_requests', 'Queries waiting for a PostgreSQL pool client, by pool (absent on PGlite).', ['pool'], () => pools().map((p) => [{ pool: p.pool }, p.waiting]));
  mirroredCounter('poi_db_connection_errors_total', 'PostgreSQL connections lost (idle or in use) since start; always 0 on PGlite.', [], () => [[{}, sources?.database.connectionErrors?.() ?? 0]]);

  gauge('poi_redis_state', 'The Redis circuit of the shared rate limits: 1 for the current state (ok, degraded: counting in memory, not_configured), 0 for the others.', ['state'], () => {
    const current = sources?.redis?.state() ?? 'not_configured';
    return (['ok', 'degraded', 'not_configured'] as const).map((state) => [{ state }, state === current ? 1 : 0]);
  });

  const jobs = () => sources?.jobs.list() ?? [];
  mirroredCounter('poi_job_runs_total', 'Finished runs of each periodic job, failed ones included.', ['job'], () => jobs().map((j) => [{ job: j.name }, j.runs]));
  mirroredCounter('poi_job_failures_total', 'Failed runs of each periodic job.', ['job'], () => jobs().map((j) => [{ job: j.name }, j.failures]));
  gauge('poi_job_last_duration_seconds', 'Duration of the last finished run of each periodic job (absent before its first run).', ['job'], () =>
    jobs().flatMap((j) => (j.lastDurationMs === null ? [] : [[{ job: j.name }, j.lastDurationMs / 1000] as [Record<string, string>, number]])),
  );

  return {
    contentType: registry.contentType,
    async scrape() {
      const [own, process] = await Promise.all([registry.metrics(), processMetrics().metrics()]);
      return own + process;
    },
    instrument(app) {
      // Each route's own onResponse hook knows its pattern: nothing is looked up or allocated per
      // request beyond the observation (request.routeOptions would build an object per call).
      app.addHook('onRoute', (route) => {
        const series = seriesOf(route.url);
        const timed = function timed(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
          series(request.method, reply.statusCode).observe(reply.elapsedTime / 1000);
          done();
        } as onResponseHookHandler;
        const own = route.onResponse;
        route.onResponse = own === undefined ? [timed] : [own].flat().concat(timed);
      });
      // Requests no route matched are answered by a not-found handler, which has no route hooks.
      const unmatched = seriesOf(UNMATCHED);
      app.addHook('onResponse', (request, reply, done) => {
        if (request.is404) unmatched(request.method, reply.statusCode).observe(reply.elapsedTime / 1000);
        done();
      });
    },
    watch(watched) {
      sources = watched;
    },
    searchAnswered(path) {
      searches[path] += 1;
    },
    suggestAnswered(path) {
      suggests[path] += 1;
    },
    budgetStopped() {
      budgetStops += 1;
    },
    countImports(service) {
      const importFile = service.importFile.bind(service);
      const counted = async (...args: never[]) => {
        const started = performance.now();
        try {
          const result = await importFile(...args);
          importSeconds.observe((performance.now() - started) / 1000);
          importRows.added += result.added;
          importRows.updated += result.updated;
          importRows.unchanged += result.unchanged;
          importRows.deleted += result.deleted;
          importRows.skipped += result.skippedCount;
          return result;
        } catch (err) {
          importFailures[err instanceof AppError && err.statusCode < 500 ? 'rejected' : 'error'] += 1;
          throw err;
        }
      };
      return { ...service, importFile: counted };
    },
  };
}
