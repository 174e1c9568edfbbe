/**
 * Where this process is in its life, for the readiness probe (docs/operations.md "Health probes
 * and shutdown"). server.ts moves it: `starting` from the first moment (its early listener
 * answers the probes), `migrating` while the database's migrations run, `serving` once the app
 * listens, `draining` from SIGTERM until exit. An app built without server.ts (tests) is serving.
 */
export type LifecyclePhase = 'starting' | 'migrating' | 'serving' | 'draining';

export interface Lifecycle {
  phase(): LifecyclePhase;
  /** The migrations run (openDatabase); back to `starting` when they end. */
  migrating(running: boolean): void;
  serving(): void;
  /** SIGTERM: for good (a draining process never serves again). */
  drain(): void;
}

export function createLifecycle(initial: LifecyclePhase = 'starting'): Lifecycle {
  let phase = initial;
  return {
    phase: () => phase,
    migrating(running) {
      if (phase === 'draining' || phase === 'serving') return;
      phase = running ? 'migrating' : 'starting';
    },
    serving() {
      if (phase !== 'draining') phase = 'serving';
    },
    drain() {
      phase = 'draining';
    },
  };
}
