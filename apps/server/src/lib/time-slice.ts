import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Cooperative slicing of long CPU work on the request thread: `tick()` between two
 * units of work (a row, a page) returns at once until `sliceMs` have passed since the last turn of
 * the event loop, then waits for one (setImmediate: after the pending I/O and timers), so that
 * /healthz, searches and SIGTERM get the thread between slices.
 *
 * Why it is needed at all: an import is a chain of async generators and awaits that resolve
 * through promises and process.nextTick only (the upload is in memory, csv-parse's stream and
 * pg-copy-streams call back synchronously while the socket takes the data), so a 9.5 MB CSV ran
 * as one macrotask: /healthz waited 24.6 s behind it on the bench's PostgreSQL (see
 * docs/resilience.md, "Big work off the event loop"). gzip uploads did not stall only because
 * zlib's callbacks come from the thread pool.
 *
 * With a signal, `tick()` throws its reason once it is aborted (the server closing): the work
 * stops at the next slice and its transaction rolls back.
 */
export interface TimeSlice {
  tick(): Promise<void> | undefined;
}

/**
 * 5 ms: a turn of the loop costs microseconds, so even 6,000 turns in a 30 s import cost nothing
 * measurable, while a search, which needs a few turns (socket, key, SQL, metering), waits for a
 * slice at each. With 10 ms slices the slowest public search during the bench's 9.5 MB import
 * was 510 ms on the shared 2-core machine (load average 10); see docs/resilience.md.
 */
export const DEFAULT_SLICE_MS = 5;

export function timeSlice(options: { sliceMs?: number; signal?: AbortSignal } = {}): TimeSlice {
  const sliceMs = options.sliceMs ?? DEFAULT_SLICE_MS;
  const { signal } = options;
  let start = performance.now();
  const turn = async () => {
    await nextTurn();
    signal?.throwIfAborted();
    start = performance.now();
  };
  return {
    tick() {
      signal?.throwIfAborted();
      if (performance.now() - start < sliceMs) return undefined;
      return turn();
    },
  };
}
