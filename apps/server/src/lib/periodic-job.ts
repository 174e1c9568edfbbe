import type { FastifyBaseLogger } from 'fastify';

/**
 * The one way the server runs work on a schedule (the monthly close, card retries, the overdue
 * marker, the usage flush, the search index's log reading and pruning, housekeeping).
 *
 * - A job is a chain of unref'd timers, never setInterval: a run never overlaps the previous one,
 *   and a slow run (a close over many accounts) delays the next instead of stacking up.
 * - Each failure writes exactly one log line naming the job (error for the first of a streak,
 *   warn for the ones after it, so an outage of minutes does not flood the log), and the first
 *   success after failures writes one line saying so.
 * - `stop()` clears the timer and waits for a run under way, so shutdown never cuts a run off
 *   halfway and nothing runs after the database closes.
 */
export interface PeriodicJobSpec<T = unknown> {
  /** Shown in every log line and in `list()`. */
  name: string;
  /**
   * How long to wait after a run (or after start) before the next one: a fixed number of
   * milliseconds, or a function of the time now (e.g. until 00:05 JST on the 1st).
   */
  every: number | ((now: Date) => number);
  run: () => Promise<T>;
  /** Run once at start (default) instead of waiting `every` first. */
  runAtStart?: boolean;
  /** The wait after the n-th failure in a row (default: `every`), e.g. a doubling backoff. */
  retryAfter?: (failures: number) => number;
  /** Called with a successful run's result, e.g. to log what it did. */
  onSuccess?: (result: T) => void;
  /** The clock (tests). */
  now?: () => Date;
}

export interface JobState {
  name: string;
  running: boolean;
  runs: number;
  failures: number;
  /** Failures in a row, 0 after a success. */
  failing: number;
  lastRunAt: Date | null;
  /** How long the last finished run took (null before one has finished). */
  lastDurationMs: number | null;
  lastError: string | null;
}

export interface PeriodicJob<T = unknown> {
  readonly name: string;
  start(): void;
  /** Runs now (sharing a run under way); rejects when the run fails. */
  runNow(): Promise<T>;
  stop(): Promise<void>;
  state(): JobState;
}

/** No timer waits longer than this: setTimeout caps at ~24.8 days and long timers drift. */
export const MAX_JOB_SLEEP_MS = 60 * 60 * 1000;
const MIN_JOB_SLEEP_MS = 10;

export function createPeriodicJob<T>(spec: PeriodicJobSpec<T>, log: FastifyBaseLogger): PeriodicJob<T> {
  const now = spec.now ?? (() => new Date());
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<T> | undefined;
  let stopped = true;
  const state: JobState = { name: spec.name, running: false, runs: 0, failures: 0, failing: 0, lastRunAt: null, lastDurationMs: null, lastError: null };

  const waitAfter = () => {
    const wait = state.failing && spec.retryAfter ? spec.retryAfter(state.failing) : typeof spec.every === 'number' ? spec.every : spec.every(now());
    return Math.min(Math.max(wait, MIN_JOB_SLEEP_MS), MAX_JOB_SLEEP_MS);
  };

  const runNow = (): Promise<T> => {
    running ??= (async () => {
      state.running = true;
      state.lastRunAt = now();
      const startedAt = performance.now();
      try {
        const result = await spec.run();
        state.runs += 1;
        if (state.failing) log.warn({ job: spec.name, failures: state.failing }, `job ${spec.name} succeeded again`);
        state.failing = 0;
        state.lastError = null;
        return result;
      } catch (err) {
        state.runs += 1;
        state.failures += 1;
        state.failing += 1;
        state.lastError = err instanceof Error ? err.message : String(err);
        const line = { job: spec.name, failures: state.failing, err };
        if (state.failing === 1) log.error(line, `job ${spec.name} failed; tried again on its next run`);
        else log.warn(line, `job ${spec.name} failed again`);
        throw err;
      } finally {
        state.lastDurationMs = performance.now() - startedAt;
        state.running = false;
        running = undefined;
      }
    })();
    return running;
  };

  const schedule = (wait: number) => {
    if (stopped) return;
    timer = setTimeout(tick, wait);
    timer.unref();
  };
  function tick() {
    timer = undefined;
    if (stopped) return;
    runNow()
      .then((result) => spec.onSuccess?.(result))
      .catch(() => undefined)
      .finally(() => schedule(waitAfter()));
  }

  return {
    name: spec.name,
    start() {
      if (!stopped) return;
      stopped = false;
      if (spec.runAtStart ?? true) tick();
      else schedule(waitAfter());
    },
    runNow,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running?.catch(() => undefined);
    },
    state: () => ({ ...state }),
  };
}

/** Every periodic job of one server, listed in one place (app.ts), started and stopped together. */
export interface JobRunner {
  add<T>(spec: PeriodicJobSpec<T>): PeriodicJob<T>;
  get(name: string): PeriodicJob | undefined;
  list(): JobState[];
  start(): void;
  /** Stops every job and waits for the runs under way. */
  stop(): Promise<void>;
}

export function createJobRunner(log: FastifyBaseLogger): JobRunner {
  const jobs = new Map<string, PeriodicJob>();
  let started = false;
  return {
    add(spec) {
      if (jobs.has(spec.name)) throw new Error(`job ${spec.name} is already registered`);
      const job = createPeriodicJob(spec, log);
      jobs.set(spec.name, job as PeriodicJob);
      if (started) job.start();
      return job;
    },
    get: (name) => jobs.get(name),
    list: () => [...jobs.values()].map((j) => j.state()),
    start() {
      started = true;
      for (const job of jobs.values()) job.start();
    },
    async stop() {
      started = false;
      await Promise.all([...jobs.values()].map((j) => j.stop()));
    },
  };
}
