// Polls GET paths from its own process while the bench runs something heavy on the server (an
// import): one loop per probe, each sending its request, waiting for the answer, then sleeping
// `intervalMs`, until a line arrives on stdin; then prints each probe's request times in
// milliseconds as JSON. Its own process, so that a server stalling the bench's thread cannot
// also stall the clock that measures it. argv[2]: { base, intervalMs, probes: [{ name, paths, headers }] }.
import http from 'node:http';
import { performance } from 'node:perf_hooks';

const o = JSON.parse(process.argv[2]);
const url = new URL(o.base);
let stopped = false;
process.stdin.once('data', () => (stopped = true));
process.stdin.once('end', () => (stopped = true));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function poll(probe) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times = [];
  const failures = [];
  for (let i = 0; !stopped; i++) {
    const path = probe.paths[i % probe.paths.length];
    const t = performance.now();
    const status = await new Promise((resolve) => {
      const req = http.request({ host: url.hostname, port: url.port, path, headers: probe.headers ?? {}, agent }, (res) => {
        res.on('data', () => undefined);
        res.on('end', () => resolve(res.statusCode));
        res.on('error', () => resolve(0));
      });
      req.on('error', () => resolve(0));
      req.end();
    });
    times.push(performance.now() - t);
    if (status !== 200) failures.push(status);
    await sleep(o.intervalMs);
  }
  agent.destroy();
  return { times, failures };
}

const results = await Promise.all(o.probes.map(poll));
process.stdout.write(JSON.stringify(Object.fromEntries(o.probes.map((p, i) => [p.name, results[i]]))));
