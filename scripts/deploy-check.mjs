// npm run deploy:check [-- --build] [-- --keep]
//
// Runs docs/deploy.md on this machine: two server instances on one fresh PostgreSQL database and
// one Redis database, behind Debian's nginx with deploy/nginx-poi-cloud.conf, and drives the
// product through nginx (sign-in, dataset, CSV import, API key, public search) checking that both
// instances answer, that the client address reaches the app, that the limits and error pages are
// the app's, and that a SIGTERM'd instance drains without losing a billed search. Prints each
// step; exits 0 only when every check passed. Not part of npm test (about a minute).
//
// Needs: PostgreSQL (trust auth) and Redis on this machine; nginx (apt-get installs nginx-light
// when it is missing and apt-get can run). Settings: DEPLOY_CHECK_PORT (nginx, default 8290; the
// instances take the next two ports), DEPLOY_CHECK_PG_URL (postgres://postgres@127.0.0.1:5432),
// DEPLOY_CHECK_REDIS_URL (redis://127.0.0.1:6379/12: a database index of its own, emptied before
// and after). --build rebuilds the product first (otherwise only when apps/*/dist is missing);
// --keep leaves the temporary directory (configs, logs) in place.
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import pg from 'pg';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const NGINX_PORT = Number(process.env.DEPLOY_CHECK_PORT ?? 8290);
const INSTANCES = [
  { name: 'A', port: NGINX_PORT + 1, billingJobs: 'on' },
  { name: 'B', port: NGINX_PORT + 2, billingJobs: 'off' },
];
const PG_BASE = (process.env.DEPLOY_CHECK_PG_URL ?? 'postgres://postgres@127.0.0.1:5432').replace(/\/+$/, '');
const REDIS_URL = process.env.DEPLOY_CHECK_REDIS_URL ?? 'redis://127.0.0.1:6379/12';
const NGINX = `http://127.0.0.1:${NGINX_PORT}`;
const ADMIN_EMAIL = 'admin@deploy-check.example';
const PROVIDER_EMAIL = 'provider@deploy-check.example';
// Clients as seen by nginx: the whole 127/8 is this machine's loopback, so a socket bound to
// 127.0.0.2 reaches nginx on 127.0.0.1 from an address that is not the proxy's.
const CLIENT_IP = '127.0.0.2';
const OTHER_IP = '127.0.0.3';

const started = Date.now();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'poi-deploy-check-'));
// nginx's workers (user nobody when started as root) write its temporary files under here.
fs.chmodSync(tmp, 0o755);
const dbName = `poi_deploy_check_${process.pid}_${Date.now().toString(36)}`;
const children = new Map();
let failed = false;

// ------------------------------------------------------------------ steps and output

async function step(title, fn) {
  const t0 = Date.now();
  try {
    const detail = await fn();
    console.log(`ok   ${title} (${Date.now() - t0} ms)${detail ? `: ${detail}` : ''}`);
  } catch (err) {
    failed = true;
    console.log(`FAIL ${title} (${Date.now() - t0} ms): ${err instanceof Error ? err.message : String(err)}`);
    throw err;
  }
}

function check(condition, message) {
  if (!condition) throw new Error(message);
}

// ------------------------------------------------------------------ HTTP through nginx or to an instance

let requestNo = 0;
/** One request; `from` binds the client socket to a local address (the client as nginx sees it). */
function request(base, method, urlPath, { headers = {}, body, from, id } = {}) {
  const rid = id ?? `dc-${++requestNo}-${crypto.randomBytes(3).toString('hex')}`;
  const url = new URL(urlPath, base);
  const payload = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
  const allHeaders = { 'x-request-id': rid, ...(body !== undefined && !Buffer.isBuffer(body) ? { 'content-type': 'application/json' } : {}), ...headers };
  if (payload) allHeaders['content-length'] = String(payload.length);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers: allHeaders, agent: false, ...(from ? { localAddress: from } : {}) },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          const text = () => raw.toString('utf8');
          resolve({
            rid,
            status: res.statusCode ?? 0,
            headers: res.headers,
            raw,
            text,
            json: () => {
              try {
                return JSON.parse(text());
              } catch {
                throw new Error(`${method} ${urlPath}: not JSON (${res.statusCode}): ${text().slice(0, 200)}`);
              }
            },
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.setTimeout(120_000, () => req.destroy(new Error(`${method} ${urlPath}: no answer in 120 s`)));
    req.end(payload);
  });
}
const viaNginx = (method, urlPath, options) => request(NGINX, method, urlPath, options);
const bearer = (token) => ({ authorization: `Bearer ${token}` });

function expectStatus(res, status, what) {
  check(res.status === status, `${what}: HTTP ${res.status}, expected ${status}: ${res.text().slice(0, 300)}`);
  return res;
}

function multipart(fields, file) {
  const boundary = `----deploycheck${crypto.randomBytes(8).toString('hex')}`;
  const parts = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: text/csv\r\n\r\n`));
  parts.push(file.content, Buffer.from(`\r\n--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

// ------------------------------------------------------------------ instances' logs

const logFile = (name) => path.join(tmp, `instance-${name}.log`);
/** The instance's pino lines (JSON), parsed; other lines are skipped. */
function logLines(name) {
  if (!fs.existsSync(logFile(name))) return [];
  return fs
    .readFileSync(logFile(name), 'utf8')
    .split('\n')
    .flatMap((line) => {
      try {
        return [JSON.parse(line)];
      } catch {
        return [];
      }
    });
}
/** The instance that logged the request with this id, and its request log line. */
/**
 * The instance that answered a request: its request log line, or, for a search's 200 (a stored
 * usage event, not logged by the app), nginx's access log line naming the upstream (the last one
 * tried when it retried).
 */
function servedBy(rid) {
  for (const { name } of INSTANCES) {
    const line = logLines(name).find((l) => l.reqId === rid && l.req);
    if (line) return { name, line };
  }
  const access = fs.existsSync(path.join(tmp, 'nginx-access.log')) ? fs.readFileSync(path.join(tmp, 'nginx-access.log'), 'utf8') : '';
  const entry = access.split('\n').find((l) => l.endsWith(` request_id=${rid}`));
  const port = entry && /upstream=(?:[^ ]*, )?127\.0\.0\.1:(\d+) /.exec(entry)?.[1];
  const instance = port && INSTANCES.find((i) => String(i.port) === port);
  return instance ? { name: instance.name, line: undefined } : undefined;
}
async function waitFor(what, fn, ms = 10_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not seen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Signs in through nginx with the code the instance that sent the mail logged (no SMTP_URL). */
async function signIn(email) {
  const since = INSTANCES.map(({ name }) => logLines(name).length);
  const requested = expectStatus(await viaNginx('POST', '/console/v1/auth/request-otp', { body: { email } }), 200, 'request-otp');
  const { name: mailer, code } = await waitFor(`the sign-in mail to ${email} in an instance's log`, () => {
    for (const [i, { name }] of INSTANCES.entries()) {
      const line = logLines(name)
        .slice(since[i])
        .find((l) => typeof l.msg === 'string' && l.msg.startsWith(`sign-in mail to ${email} `));
      const m = line && /code (\d{6})/.exec(line.msg);
      if (m) return { name, code: m[1] };
    }
    return undefined;
  });
  const verified = expectStatus(await viaNginx('POST', '/console/v1/auth/verify-otp', { body: { email, code } }), 200, 'verify-otp');
  const verifier = servedBy(verified.rid)?.name ?? '?';
  return { token: verified.json().token, userId: verified.json().user.id, route: `code requested on ${servedBy(requested.rid)?.name ?? '?'} (mail logged by ${mailer}), verified on ${verifier}` };
}

// ------------------------------------------------------------------ Redis without a client library

/** Sends commands to REDIS_URL's database (RESP) and answers the replies' first lines. */
function redis(...commands) {
  const url = new URL(REDIS_URL);
  const db = url.pathname.replace('/', '') || '0';
  const encode = (parts) => `*${parts.length}\r\n${parts.map((p) => `$${Buffer.byteLength(String(p))}\r\n${p}\r\n`).join('')}`;
  const all = [['SELECT', db], ...commands];
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port || 6379), url.hostname);
    let data = '';
    socket.setTimeout(5000, () => socket.destroy(new Error('Redis did not answer')));
    socket.on('data', (chunk) => {
      data += chunk;
      const lines = data.split('\r\n').filter(Boolean);
      if (lines.length >= all.length) {
        socket.end();
        const replies = lines.slice(1, all.length);
        const bad = lines.slice(0, all.length).find((l) => l.startsWith('-'));
        if (bad) reject(new Error(`Redis: ${bad}`));
        else resolve(replies);
      }
    });
    socket.on('error', reject);
    socket.write(all.map(encode).join(''));
  });
}

// ------------------------------------------------------------------ processes

function startProcess(name, command, argv, env, log) {
  const out = fs.openSync(log, 'a');
  const child = spawn(command, argv, { env, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  children.set(name, { child, exited });
  return { child, exited };
}

async function stopProcess(name, signal = 'SIGTERM', ms = 15_000) {
  const entry = children.get(name);
  if (!entry) return undefined;
  children.delete(name);
  if (entry.child.exitCode !== null || entry.child.signalCode !== null) return entry.exited;
  entry.child.kill(signal);
  const timer = setTimeout(() => entry.child.kill('SIGKILL'), ms);
  const result = await entry.exited;
  clearTimeout(timer);
  return result;
}

async function portFree(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

// ------------------------------------------------------------------ what is imported and searched

const CENTER = { lat: 35.65, lng: 139.75 };
const GRID = { rows: 200, cols: 100, step: 0.001, lat0: 35.6, lng0: 139.7 };
const poiAt = (i) => ({ lat: +(GRID.lat0 + (i % GRID.rows) * GRID.step).toFixed(6), lng: +(GRID.lng0 + Math.floor(i / GRID.rows) * GRID.step).toFixed(6) });
const isCafe = (i) => i % 10 === 0;
const nameOf = (i) => (isCafe(i) ? `デプロイ確認カフェ ${i}` : `デプロイ確認 ${i}`);
const COUNT = GRID.rows * GRID.cols;

function csvFile() {
  const lines = ['名称,緯度,経度,住所,カテゴリ,説明,タグ'];
  for (let i = 0; i < COUNT; i++) {
    const { lat, lng } = poiAt(i);
    lines.push(`${nameOf(i)},${lat},${lng},東京都港区芝公園${i},${isCafe(i) ? 'カフェ' : '店舗'},二台の構成を確かめるための地点です(${i}),確認|nginx`);
  }
  return Buffer.from(lines.join('\r\n') + '\r\n');
}

/** The distance the server computes (earthdistance's sphere, haversine), in metres. */
function distance(a, b) {
  const R = 6378168;
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLng = (b.lng - a.lng) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * R * Math.asin(Math.sqrt(h));
}

function message(key) {
  const source = fs.readFileSync(path.join(root, 'packages/shared/src/messages.ts'), 'utf8');
  const m = new RegExp(`\\n\\s+${key}: '([^']*)'`).exec(source);
  if (!m) throw new Error(`messages.ts has no ${key}`);
  return m[1];
}

// ------------------------------------------------------------------ the run

const state = {};

async function run() {
  console.log(`deploy check: nginx on ${NGINX_PORT}, instances on ${INSTANCES.map((i) => i.port).join(' and ')}, files in ${tmp}`);

  await step('ports free', async () => {
    for (const port of [NGINX_PORT, ...INSTANCES.map((i) => i.port)]) check(await portFree(port), `port ${port} is in use (DEPLOY_CHECK_PORT picks others)`);
    return [NGINX_PORT, ...INSTANCES.map((i) => i.port)].join(', ');
  });

  await step('nginx installed', async () => {
    let probe = spawnSync('nginx', ['-v'], { encoding: 'utf8' });
    if (probe.error) {
      console.log('     nginx missing: apt-get install -y nginx-light (nginx if that fails)');
      const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
      let apt = spawnSync('apt-get', ['install', '-y', 'nginx-light'], { stdio: 'inherit', env });
      if (apt.status !== 0) apt = spawnSync('apt-get', ['install', '-y', 'nginx'], { stdio: 'inherit', env });
      check(apt.status === 0, 'apt-get could not install nginx');
      probe = spawnSync('nginx', ['-v'], { encoding: 'utf8' });
    }
    check(!probe.error, 'nginx not found');
    return probe.stderr.trim();
  });

  await step('product built', async () => {
    const built = fs.existsSync(path.join(root, 'apps/server/dist/server.js')) && fs.existsSync(path.join(root, 'apps/web/dist/index.html'));
    if (built && !args.has('--build')) return 'apps/server/dist and apps/web/dist present (--build rebuilds)';
    const res = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
    check(res.status === 0, 'npm run build failed');
    return 'npm run build';
  });

  const pgAdmin = async (sql) => {
    const c = new pg.Client({ connectionString: `${PG_BASE}/postgres`, connectionTimeoutMillis: 5000 });
    await c.connect();
    try {
      return await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await step('PostgreSQL database created', async () => {
    await pgAdmin(`CREATE DATABASE ${dbName} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'`);
    state.dbCreated = true;
    const max = (await pgAdmin('SHOW max_connections')).rows[0].max_connections;
    return `${dbName} (UTF-8, C.UTF-8) at ${PG_BASE}; max_connections ${max}`;
  });
  const databaseUrl = `${PG_BASE}/${dbName}`;

  await step('Redis database emptied', async () => {
    const [reply] = await redis(['FLUSHDB']);
    check(reply === '+OK', `FLUSHDB answered ${reply}`);
    return REDIS_URL;
  });

  const appSecret = crypto.randomBytes(32).toString('hex');
  await step('two instances started (same APP_SECRET, DATABASE_URL, REDIS_URL)', async () => {
    // A alone first: it runs the migrations; B then finds them applied.
    for (const instance of INSTANCES) {
      const env = {
        ...process.env,
        NODE_ENV: 'production',
        PORT: String(instance.port),
        HOST: '127.0.0.1',
        PUBLIC_URL: NGINX,
        DATA_DIR: path.join(tmp, `data-${instance.name}`),
        DATABASE_URL: databaseUrl,
        REDIS_URL,
        APP_SECRET: appSecret,
        // nginx connects from 127.0.0.1: only its X-Forwarded-For is believed.
        TRUST_PROXY: '127.0.0.1',
        BILLING_JOBS: instance.billingJobs,
        ADMIN_EMAILS: ADMIN_EMAIL,
        SMTP_URL: '',
        SEARCH_INDEX_MAX_MB: '256',
        LOG_LEVEL: 'info',
      };
      const { child } = startProcess(instance.name, process.execPath, [path.join(root, 'apps/server/dist/server.js')], env, logFile(instance.name));
      const deadline = Date.now() + 90_000;
      for (;;) {
        check(child.exitCode === null, `instance ${instance.name} exited with ${child.exitCode}: see ${logFile(instance.name)}`);
        const res = await request(`http://127.0.0.1:${instance.port}`, 'GET', '/healthz', { id: `dc-start-${instance.name}-${Date.now()}` }).catch(() => undefined);
        if (res?.status === 200) break;
        check(Date.now() < deadline, `instance ${instance.name} not healthy within 90 s`);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    return INSTANCES.map((i) => `${i.name} :${i.port} BILLING_JOBS=${i.billingJobs}`).join(', ');
  });

  await step('nginx started with deploy/nginx-poi-cloud.conf', async () => {
    const conf = `# Written by scripts/deploy-check.mjs; the server block is docs/deploy.md's, on plain HTTP.
worker_processes 1;
pid ${tmp}/nginx.pid;
error_log ${tmp}/nginx-error.log warn;
events { worker_connections 256; }
http {
    include /etc/nginx/mime.types;
    client_body_temp_path ${tmp}/nginx-body;
    proxy_temp_path ${tmp}/nginx-proxy;
    log_format upstream '$remote_addr "$request" $status upstream=$upstream_addr request_id=$upstream_http_x_request_id';
    access_log ${tmp}/nginx-access.log upstream;
    upstream poi_cloud {
${INSTANCES.map((i) => `        server 127.0.0.1:${i.port} max_fails=3 fail_timeout=10s;`).join('\n')}
        keepalive 16;
    }
    server {
        listen 127.0.0.1:${NGINX_PORT};
        server_name localhost;
        include ${path.join(root, 'deploy/nginx-poi-cloud.conf')};
    }
}
`;
    fs.writeFileSync(path.join(tmp, 'nginx.conf'), conf);
    const nginxArgs = ['-p', tmp, '-c', path.join(tmp, 'nginx.conf'), '-e', path.join(tmp, 'nginx-error.log')];
    const test = spawnSync('nginx', [...nginxArgs, '-t'], { encoding: 'utf8' });
    check(test.status === 0, `nginx -t: ${test.stderr}`);
    const { child } = startProcess('nginx', 'nginx', [...nginxArgs, '-g', 'daemon off;'], process.env, path.join(tmp, 'nginx-stdout.log'));
    const deadline = Date.now() + 10_000;
    while (child.exitCode === null && (await portFree(NGINX_PORT))) {
      check(Date.now() < deadline, 'nginx not listening within 10 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    check(child.exitCode === null, `nginx exited: ${fs.readFileSync(path.join(tmp, 'nginx-error.log'), 'utf8')}`);
    return `${NGINX}, round robin over ${INSTANCES.map((i) => `127.0.0.1:${i.port}`).join(' and ')}`;
  });

  await step('/healthz through nginx reaches both instances', async () => {
    const seen = new Set();
    for (let i = 0; i < 4; i++) {
      const res = expectStatus(await viaNginx('GET', '/healthz'), 200, '/healthz');
      check(res.json().status === 'ok', `/healthz status ${res.json().status}`);
      check(res.json().redis === 'ok', `/healthz redis ${res.json().redis}`);
      seen.add(await waitFor('the request in a log', () => servedBy(res.rid)?.name));
    }
    check(seen.size === 2, `only instance ${[...seen].join()} answered 4 requests`);
    return 'status ok, redis ok, answered by A and B';
  });

  await step('console files pre-compressed by the app, not again by nginx', async () => {
    const br = expectStatus(await viaNginx('GET', '/', { headers: { 'accept-encoding': 'br' } }), 200, 'GET / (br)');
    check(br.headers['content-encoding'] === 'br', `Content-Encoding ${br.headers['content-encoding']}`);
    check(zlib.brotliDecompressSync(br.raw).toString().includes('<div id="root"'), 'the br body is not the console page');
    const gz = expectStatus(await viaNginx('GET', '/', { headers: { 'accept-encoding': 'gzip' } }), 200, 'GET / (gzip)');
    check(gz.headers['content-encoding'] === 'gzip', `Content-Encoding ${gz.headers['content-encoding']}`);
    check(zlib.gunzipSync(gz.raw).toString().includes('<div id="root"'), 'the gzip body is not the console page (compressed twice?)');
    const small = expectStatus(await viaNginx('GET', '/healthz', { headers: { 'accept-encoding': 'gzip, br' } }), 200, '/healthz');
    check(!small.headers['content-encoding'], `a small JSON answer came ${small.headers['content-encoding']}-encoded (nginx compressing)`);
    return `index.html br ${br.raw.length} B, gzip ${gz.raw.length} B; small JSON left plain`;
  });

  await step('admin signs in through nginx (code from the instance log)', async () => {
    state.admin = await signIn(ADMIN_EMAIL);
    return state.admin.route;
  });
  await step('provider signs in and is made a data provider', async () => {
    state.provider = await signIn(PROVIDER_EMAIL);
    const res = await viaNginx('POST', `/console/v1/admin/users/${state.provider.userId}/change-type`, {
      headers: bearer(state.admin.token),
      body: { account_type: 'data_provider', reason: 'デプロイ確認' },
    });
    expectStatus(res, 200, 'change-type');
    return state.provider.route;
  });
  await step('the session works on each instance directly', async () => {
    for (const { name, port } of INSTANCES) {
      const res = await request(`http://127.0.0.1:${port}`, 'GET', '/console/v1/user', { headers: bearer(state.provider.token) });
      expectStatus(res, 200, `GET /console/v1/user on ${name}`);
      check(res.json().data?.account_type === 'data_provider' || JSON.stringify(res.json()).includes('data_provider'), `instance ${name} does not see the new account type`);
    }
    return 'A and B both know the session and the changed account type';
  });

  await step('dataset created', async () => {
    const res = expectStatus(
      await viaNginx('POST', '/console/v1/datasets/public/create', { headers: bearer(state.provider.token), body: { name: 'デプロイ確認データ', price_per_search: 0 } }),
      200,
      'create dataset',
    );
    state.datasetId = res.json().data.dataset_id;
    return state.datasetId;
  });

  await step('CSV imported through nginx (multipart, over nginx default 1 MB)', async () => {
    const csv = csvFile();
    const form = multipart({ dataset_id: state.datasetId, format: 'csv', mode: 'update' }, { name: 'deploy-check.csv', content: csv });
    const res = expectStatus(await viaNginx('POST', '/console/v1/poi/bulk-import', { headers: { ...bearer(state.provider.token), ...form.headers }, body: form.body }), 200, 'import');
    const body = res.json();
    check(body.imported_count === COUNT && body.skipped_count === 0, `imported ${body.imported_count}, skipped ${body.skipped_count} of ${COUNT}`);
    return `${COUNT} rows, ${(csv.length / 1e6).toFixed(2)} MB, on ${servedBy(res.rid)?.name ?? '?'}: 「${body.message}」`;
  });

  await step('API key created (allowed only from the client address)', async () => {
    const res = expectStatus(
      await viaNginx('POST', '/console/v1/api-keys', { headers: bearer(state.provider.token), body: { name: 'デプロイ確認', allowed_ips: [CLIENT_IP] } }),
      200,
      'create API key',
    );
    state.apiKey = res.json().data.key;
    state.apiKeyId = res.json().data.api_key.id;
    return `allowed_ips ${CLIENT_IP}`;
  });

  state.answered = 0;
  const search = async (query, options = {}) => {
    const res = await (options.base ? request(options.base, 'GET', `/api/v1/poi/search?${query}`, { headers: { 'x-api-key': state.apiKey }, from: options.from ?? CLIENT_IP }) : viaNginx('GET', `/api/v1/poi/search?${query}`, { headers: { 'x-api-key': state.apiKey, ...options.headers }, from: options.from ?? CLIENT_IP }));
    if (res.status === 200) state.answered += 1;
    return res;
  };

  await step('public search through nginx answers the nearest POIs', async () => {
    const center = 50 * GRID.rows + 50; // the grid point at CENTER (row 50, column 50)
    check(poiAt(center).lat === CENTER.lat && poiAt(center).lng === CENTER.lng, 'the grid has no point at the centre');
    const sorted = Array.from({ length: COUNT }, (_, i) => ({ i, d: distance(CENTER, poiAt(i)) })).sort((a, b) => a.d - b.d);
    const q = `dataset_id=${state.datasetId}&latitude=${CENTER.lat}&longitude=${CENTER.lng}&limit=5`;
    // The first searches may come before an instance's in-memory index is built (PostgreSQL
    // answers them): the answers are the same either way.
    const res = expectStatus(await search(q), 200, 'search');
    const pois = res.json().data.pois;
    check(pois.length === 5, `${pois.length} POIs`);
    check(pois[0].name === nameOf(center) && pois[0].distance_m < 0.01, `first ${pois[0].name} at ${pois[0].distance_m} m, expected ${nameOf(center)}`);
    // Ties (east and west, north and south) come in poi_id order: compare the rings as sets.
    const ring = (list) => list.map((p) => p.name).sort().join();
    check(ring(pois.slice(1, 3)) === ring(sorted.slice(1, 3).map((s) => ({ name: nameOf(s.i) }))), `2nd–3rd ${ring(pois.slice(1, 3))}`);
    check(ring(pois.slice(3, 5)) === ring(sorted.slice(3, 5).map((s) => ({ name: nameOf(s.i) }))), `4th–5th ${ring(pois.slice(3, 5))}`);
    check(Math.abs(pois[1].distance_m - sorted[1].d) < 0.5, `2nd at ${pois[1].distance_m} m, expected ${sorted[1].d.toFixed(1)} m`);

    // A radius no カフェ lies within 2 m of, so rounding cannot decide the count.
    const cafes = sorted.filter((s) => isCafe(s.i));
    const radius = [300, 310, 320, 330, 340, 350, 360, 370, 380, 390].find((r) => !cafes.some((s) => Math.abs(s.d - r) < 2));
    check(radius, 'no radius clear of the POIs');
    const within = cafes.filter((s) => s.d <= radius);
    const kw = expectStatus(await search(`${q.replace('limit=5', 'limit=50')}&keyword=${encodeURIComponent('デプロイ確認カフェ')}&radius=${radius}`), 200, 'keyword search');
    const data = kw.json().data;
    check(data.total === within.length && data.pois.length === within.length, `keyword search: total ${data.total}, ${data.pois.length} POIs, expected ${within.length}`);
    check(data.pois.every((p) => p.name.startsWith('デプロイ確認カフェ')), 'a POI without the keyword');
    return `nearest ${pois[0].name} (0 m), then ${pois[1].distance_m.toFixed(1)} m; カフェ within ${radius} m: ${data.total} as computed; on ${servedBy(res.rid)?.name ?? '?'} and ${servedBy(kw.rid)?.name ?? '?'}`;
  });

  await step('a search cursor made on A continues on B', async () => {
    const q = `dataset_id=${state.datasetId}&latitude=${CENTER.lat}&longitude=${CENTER.lng}&limit=10`;
    const first = expectStatus(await search(q, { base: `http://127.0.0.1:${INSTANCES[0].port}` }), 200, 'page 1 on A');
    const cursor = first.json().data.next_cursor;
    check(cursor, 'no next_cursor');
    const second = expectStatus(await search(`${q}&cursor=${encodeURIComponent(cursor)}`, { base: `http://127.0.0.1:${INSTANCES[1].port}` }), 200, 'page 2 on B');
    const a = first.json().data.pois.map((p) => p.poi_id);
    const b = second.json().data.pois.map((p) => p.poi_id);
    check(b.length === 10 && !b.some((id) => a.includes(id)), 'page 2 repeats page 1');
    check(second.json().data.pois[0].distance_m >= first.json().data.pois[9].distance_m, 'page 2 starts nearer than page 1 ended');
    return 'page 2 follows page 1 (shared APP_SECRET signs cursors)';
  });

  await step('X-Forwarded-For: the app logs the client nginx saw, never a forged one', async () => {
    // A search's 200 is a stored usage event and writes no request log (docs/operations.md): a
    // refused one (limit=0, 400, unbilled) is logged with the client address, as every non-200 is.
    const plain = expectStatus(await search(`dataset_id=${state.datasetId}&limit=0`), 400, 'search with limit=0');
    const forged = expectStatus(await search(`dataset_id=${state.datasetId}&limit=0`, { headers: { 'x-forwarded-for': '203.0.113.9' } }), 400, 'search with limit=0 and a forged X-Forwarded-For');
    // The instance's own log line, not nginx's access log (servedBy's fallback, written first).
    const logged = (rid) => {
      const seen = servedBy(rid);
      return seen?.line ? seen : undefined;
    };
    const seenPlain = await waitFor('the request log', () => logged(plain.rid));
    const seenForged = await waitFor('the request log', () => logged(forged.rid));
    check(seenPlain.line.req.remoteAddress === CLIENT_IP, `logged ${seenPlain.line.req.remoteAddress}, expected ${CLIENT_IP}`);
    check(seenForged.line.req.remoteAddress === CLIENT_IP, `forged header believed: logged ${seenForged.line.req.remoteAddress}`);
    const denied = await search(`dataset_id=${state.datasetId}&limit=1`, { from: OTHER_IP });
    expectStatus(denied, 403, `search from ${OTHER_IP}`);
    return `remoteAddress ${CLIENT_IP} on ${seenPlain.name} and ${seenForged.name} (forged 203.0.113.9 ignored); from ${OTHER_IP} 403 「${denied.json().error.message}」`;
  });

  await step('upload limits answered in the app\u2019s words', async () => {
    const expected = message('importTooLarge');
    const justOver = multipart({ dataset_id: state.datasetId, format: 'csv' }, { name: 'big.csv', content: Buffer.alloc(10.5 * 1024 * 1024, 0x61) });
    const app413 = await viaNginx('POST', '/console/v1/poi/bulk-import', { headers: { ...bearer(state.provider.token), ...justOver.headers }, body: justOver.body });
    expectStatus(app413, 413, '10.5 MB import');
    check(app413.json().error.message === expected, `10.5 MB: 「${app413.json().error.message}」`);
    check(servedBy(app413.rid), '10.5 MB: not answered by an instance');
    const wayOver = multipart({ dataset_id: state.datasetId, format: 'csv' }, { name: 'big.csv', content: Buffer.alloc(13 * 1024 * 1024, 0x61) });
    const nginx413 = await viaNginx('POST', '/console/v1/poi/bulk-import', { headers: { ...bearer(state.provider.token), ...wayOver.headers }, body: wayOver.body });
    expectStatus(nginx413, 413, '13 MB import');
    check(nginx413.json().error.message === expected, `13 MB: 「${nginx413.json().error.message}」`);
    const json413 = await viaNginx('POST', '/console/v1/logs/frontend', { body: Buffer.alloc(3 * 1024 * 1024, 0x61), headers: { 'content-type': 'application/json' } });
    expectStatus(json413, 413, '3 MB JSON body');
    check(json413.json().error.message === message('payloadTooLarge'), `3 MB: 「${json413.json().error.message}」`);
    return '10.5 MB → the app\u2019s 413; 13 MB import and 3 MB JSON → nginx\u2019s 413 with the same JSON and texts';
  });

  await step('both instances served the requests (logs and nginx access log)', async () => {
    const counts = INSTANCES.map(({ name }) => logLines(name).filter((l) => l.msg === 'incoming request' && String(l.reqId).startsWith('dc-') && !String(l.reqId).startsWith('dc-start')).length);
    check(counts.every((n) => n > 0), `requests per instance ${counts.join(', ')}`);
    const access = fs.readFileSync(path.join(tmp, 'nginx-access.log'), 'utf8');
    const upstreams = INSTANCES.map(({ port }) => access.split(`upstream=127.0.0.1:${port}`).length - 1);
    check(upstreams.every((n) => n > 0), `nginx sent ${upstreams.join(', ')}`);
    const [keys] = await redis(['DBSIZE']);
    check(Number(keys.slice(1)) > 0, 'no rate-limit counters in Redis');
    const { rows } = await pgAdmin(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = '${dbName}'`);
    const rss = INSTANCES.map(({ name }) => {
      const status = fs.readFileSync(`/proc/${children.get(name).child.pid}/status`, 'utf8');
      return `${name} ${Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024)} MB`;
    });
    return `A ${counts[0]} and B ${counts[1]} requests; nginx upstream A ${upstreams[0]}, B ${upstreams[1]}; ${keys.slice(1)} shared counters in Redis; ${rows[0].n} PostgreSQL connections open; RSS ${rss.join(', ')}`;
  });

  await step('SIGTERM to A: it drains and exits 0, nginx sends everything to B', async () => {
    // Searches under way while A shuts down: each is answered (by A before it closes, or by B).
    const load = Array.from({ length: 20 }, (_, i) => search(`dataset_id=${state.datasetId}&latitude=${CENTER.lat}&longitude=${CENTER.lng}&limit=3&offset=${i}`));
    const exit = stopProcess('A', 'SIGTERM');
    const answers = await Promise.all(load);
    const { code, signal } = await exit;
    check(code === 0, `A exited with ${code ?? signal}`);
    check(answers.every((r) => r.status === 200), `statuses ${answers.map((r) => r.status).join(',')}`);
    const after = [];
    for (let i = 0; i < 6; i++) after.push(expectStatus(await search(`dataset_id=${state.datasetId}&limit=1&offset=${i}`), 200, 'search after A stopped'));
    // nginx logs a request after answering it: wait for each line rather than read the log at once.
    const servers = [];
    for (const r of after) servers.push((await waitFor('the search in a log', () => servedBy(r.rid))).name);
    const onB = servers.filter((name) => name === 'B').length;
    check(onB === after.length, `${onB} of ${after.length} searches on B`);
    const linesA = logLines('A');
    check(linesA.some((l) => String(l.msg).startsWith('shutting down')), 'A did not log its shutdown');
    check(linesA.some((l) => l.msg === 'shut down'), 'A did not log the end of its drain');
    const onA = answers.filter((r) => servedBy(r.rid)?.name === 'A').length;
    return `exit 0; the ${answers.length} concurrent searches all 200 (A answered ${onA}); ${after.length} later searches 200, all on B`;
  });

  await step('SIGTERM to B; nginx answers 503 in the app\u2019s shape', async () => {
    const { code, signal } = await stopProcess('B', 'SIGTERM');
    check(code === 0, `B exited with ${code ?? signal}`);
    const res = await viaNginx('GET', '/healthz');
    expectStatus(res, 503, 'with no instance');
    check(res.json().error?.message === message('internalError') && res.headers['retry-after'] === '5', `503 body ${res.text()}`);
    return `「${res.json().error.message}」, Retry-After 5`;
  });

  await step('every search answered 200 was metered once (after both flushed on SIGTERM)', async () => {
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    try {
      const { rows } = await c.query('SELECT count(*)::int AS n FROM usage_events WHERE api_key_id = $1', [state.apiKeyId]);
      check(rows[0].n === state.answered, `${rows[0].n} usage events for ${state.answered} answered searches`);
      return `${state.answered} answered, ${rows[0].n} usage events`;
    } finally {
      await c.end();
    }
  });
}

async function cleanup() {
  for (const name of [...children.keys()].reverse()) await stopProcess(name, name === 'nginx' ? 'SIGQUIT' : 'SIGTERM');
  if (state.dbCreated) {
    const c = new pg.Client({ connectionString: `${PG_BASE}/postgres` });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await c.end();
  }
  await redis(['FLUSHDB']).catch(() => undefined);
}

try {
  await run();
} catch {
  // reported by step()
} finally {
  await step('stopped everything, dropped the database', async () => {
    await cleanup();
    if (failed || args.has('--keep')) return `logs kept in ${tmp}`;
    fs.rmSync(tmp, { recursive: true, force: true });
    return undefined;
  }).catch(() => undefined);
  console.log(`deploy check ${failed ? 'FAILED' : 'passed'} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  process.exitCode = failed ? 1 : 0;
}
