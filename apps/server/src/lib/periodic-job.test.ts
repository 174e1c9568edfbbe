import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FastifyBaseLogger } from 'fastify';
import { createJobRunner, createPeriodicJob, MAX_JOB_SLEEP_MS } from './periodic-job';

function recordingLog() {
  const lines: { level: string; msg: string; job?: string; failures?: number }[] = [];
  const at = (level: string) => (obj: { job?: string; failures?: number }, msg: string) => lines.push({ level, msg, job: obj.job, failures: obj.failures });
  const log = { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') } as unknown as FastifyBaseLogger;
  return { log, lines };
}

describe('createPeriodicJob', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs at start, then every interval after the previous run ends, never overlapping', async () => {
    const { log } = recordingLog();
    let active = 0;
    let most = 0;
    const starts: number[] = [];
    const job = createPeriodicJob(
      {
        name: 'slow',
        every: 100,
        run: async () => {
          starts.push(Date.now());
          active += 1;
          most = Math.max(most, active);
          await new Promise((r) => setTimeout(r, 250));
          active -= 1;
        },
      },
      log,
    );
    const t0 = Date.now();
    job.start();
    await vi.advanceTimersByTimeAsync(1000);
    await job.stop();
    expect(most).toBe(1);
    // 250 ms run + 100 ms wait: runs at 0, 350, 700.
    expect(starts.map((s) => s - t0)).toEqual([0, 350, 700]);
    expect(job.state().runs).toBe(3);
  });

  it('logs one line per failure (error first, warn after) and one when it recovers; backs off with retryAfter', async () => {
    const { log, lines } = recordingLog();
    let calls = 0;
    const job = createPeriodicJob(
      {
        name: 'flaky',
        every: 1000,
        retryAfter: (n) => 100 * 2 ** n,
        run: async () => {
          calls += 1;
          if (calls <= 3) throw new Error(`down ${calls}`);
          return calls;
        },
      },
      log,
    );
    job.start();
    // Failures at 0, 200 (2¹×100), 600 (+400), then success at 1400 (+800).
    await vi.advanceTimersByTimeAsync(1399);
    expect(calls).toBe(3);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toBe(4);
    await job.stop();
    expect(lines.map((l) => [l.level, l.failures])).toEqual([
      ['error', 1],
      ['warn', 2],
      ['warn', 3],
      ['warn', 3],
    ]);
    expect(lines.every((l) => l.job === 'flaky')).toBe(true);
    expect(job.state()).toMatchObject({ failures: 3, failing: 0, lastError: null, runs: 4 });
  });

  it('waits for a run under way on stop and never runs again', async () => {
    const { log } = recordingLog();
    let finished = false;
    let calls = 0;
    const job = createPeriodicJob(
      {
        name: 'close',
        every: 10,
        run: async () => {
          calls += 1;
          await new Promise((r) => setTimeout(r, 500));
          finished = true;
        },
      },
      log,
    );
    job.start();
    const stopping = job.stop();
    await vi.advanceTimersByTimeAsync(500);
    await stopping;
    expect(finished).toBe(true);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(calls).toBe(1);
  });

  it('shares a run under way with runNow, and caps a long wait so the clock is looked at hourly', async () => {
    const { log } = recordingLog();
    let calls = 0;
    const job = createPeriodicJob(
      {
        name: 'monthly',
        every: () => 40 * 24 * 3600 * 1000,
        runAtStart: false,
        run: async () => {
          calls += 1;
          await new Promise((r) => setTimeout(r, 50));
          return calls;
        },
      },
      log,
    );
    job.start();
    await vi.advanceTimersByTimeAsync(MAX_JOB_SLEEP_MS - 1);
    expect(calls).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toBe(1);
    const [a, b] = [job.runNow(), job.runNow()];
    await vi.advanceTimersByTimeAsync(50);
    expect(await a).toBe(await b);
    await job.stop();
  });
});

describe('createJobRunner', () => {
  it('lists its jobs, refuses a name twice, and stops them all', async () => {
    const { log } = recordingLog();
    const runner = createJobRunner(log);
    let runs = 0;
    runner.add({ name: 'a', every: 60_000, run: async () => void (runs += 1) });
    runner.add({ name: 'b', every: 60_000, runAtStart: false, run: async () => void (runs += 1) });
    expect(() => runner.add({ name: 'a', every: 1, run: async () => undefined })).toThrow(/already/);
    runner.start();
    // The first runNow shares the run start began; the second is a run of its own.
    await runner.get('a')?.runNow();
    await runner.get('a')?.runNow();
    await runner.stop();
    expect(runner.list().map((s) => s.name)).toEqual(['a', 'b']);
    expect(runs).toBe(2);
  });
});
