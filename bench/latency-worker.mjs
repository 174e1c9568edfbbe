// Sends GET requests one at a time over one keep-alive connection, from its own process (so the
// client does not share the server's thread), and prints each request's time in milliseconds as
// JSON. argv[2]: { base, paths, headers }. A non-200 answer ends it with exit code 1.
import http from 'node:http';
import { performance } from 'node:perf_hooks';

const o = JSON.parse(process.argv[2]);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const url = new URL(o.base);
const get = (path) =>
  new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path, headers: o.headers, agent }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${path} answered ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end();
  });
const times = [];
for (const path of o.paths) {
  const t = performance.now();
  await get(path);
  times.push(performance.now() - t);
}
agent.destroy();
process.stdout.write(JSON.stringify(times));
