// Runs autocannon in its own process (so the load does not share the server's event loop) and
// prints its JSON summary. argv[2]: { url, headers, connections, duration, paths?, randomPoint? }.
import autocannon from 'autocannon';

const o = JSON.parse(process.argv[2]);
let i = 0;
const nextPath = () => {
  if (o.randomPoint) {
    // Every request a different point (no two searches alike): the uncached case.
    const { base, latitude, longitude, spread } = o.randomPoint;
    const lat = latitude + (Math.random() - 0.5) * spread;
    const lon = longitude + (Math.random() - 0.5) * spread;
    return `${base}&latitude=${lat.toFixed(6)}&longitude=${lon.toFixed(6)}`;
  }
  return o.paths[i++ % o.paths.length];
};
const result = await autocannon({
  url: o.url,
  connections: o.connections,
  duration: o.duration,
  headers: o.headers,
  requests: [{ setupRequest: (req) => ({ ...req, path: nextPath() }) }],
});
process.stdout.write(JSON.stringify({
  requests: result.requests,
  latency: result.latency,
  errors: result.errors,
  timeouts: result.timeouts,
  non2xx: result.non2xx,
  '2xx': result['2xx'],
}));
