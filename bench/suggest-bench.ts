/**
 * The type-ahead (GET /api/v1/poi/suggest) over HTTP at concurrency 1: the table's build on the
 * first suggest (time and memory), then p50/p99 of what people type into a search box — kana,
 * romaji with an unfinished syllable, half-width, long vowels — with and without a point, from
 * memory, and the same from PostgreSQL (the fallback, a few calls only: it reads every matching
 * row). Target (issue 33): p50 ≤ 1 ms, p99 ≤ 5 ms on 1M POIs.
 */
import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { runJsonWorker } from './public-api-bench';
import { fmt, pct, type BenchResult } from './stats';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 300);
const WARMUP = 30;
const SQL_CALLS = 5;

/** Prefixes of bench/generate.ts's names (さくら…, 中央…, ABC…, カフェ, ラーメン …) as they are typed, and a few that find little. */
const TYPED = [
  'さ', 'さく', 'さくら', 'sakura', 'sakurak', 'ｻｸﾗ', 'みどり', 'midori', 'ひかりか', 'hikarir', 'あおばこ', 'aoba',
  'ちゅうおう', 'chuuou', 'ほんまち', 'honmachi', 'えきまえ', 'ekimae', 'しんまち', 'sinmati', 'みなと', 'minato', 'おかのうえ',
  'abc', 'blue', 'ぐりーん', 'guri-n', 'すまいる', 'sumairu', 'おおどおり', 'oodoori', 'かふぇ', 'らーめん', 'ramen', 'すし',
  'こうえん', 'ほてる', 'びじゅつかん', 'いざかや', 'べーかりー', 'やっきょく', 'じんじゃ', 'おんせん', 'ぷらざ', 'せんたー',
  'わっかない', 'wakkanai', 'ヴィ', 'びょういん', 'zz', 'ん',
];

export interface SuggestBenchOptions {
  kind: 'postgres' | 'pglite';
  app: FastifyInstance;
  base: string;
  datasetId: string;
  apiKey: string;
  points: Array<{ latitude: number; longitude: number }>;
}

async function timeCalls(urls: (i: number) => string, n: number, warmup: number, apiKey: string): Promise<{ p50: number; p99: number; empty: number }> {
  const samples: number[] = [];
  let empty = 0;
  for (let i = 0; i < warmup + n; i++) {
    const t = performance.now();
    const res = await fetch(urls(i), { headers: { 'x-api-key': apiKey } });
    const body = await res.text();
    const ms = performance.now() - t;
    if (res.status !== 200) throw new Error(`suggest answered ${res.status}: ${body}`);
    if (i >= warmup) {
      samples.push(ms);
      if (body.includes('"suggestions":[]')) empty += 1;
    }
  }
  samples.sort((a, b) => a - b);
  return { p50: pct(samples, 50), p99: pct(samples, 99), empty };
}

export async function runSuggestBench(o: SuggestBenchOptions, pois: number): Promise<BenchResult[]> {
  const index = o.app.searchIndex;
  const url = (i: number) => {
    const typed = TYPED[i % TYPED.length]!;
    const withPoint = Math.floor(i / TYPED.length) % 2 === 1;
    const p = o.points[i % o.points.length]!;
    return `${o.base}/api/v1/poi/suggest?dataset_id=${o.datasetId}&q=${encodeURIComponent(typed)}${withPoint ? `&latitude=${p.latitude}&longitude=${p.longitude}` : ''}`;
  };
  const results: BenchResult[] = [];
  console.log(`\n  Suggest (GET /api/v1/poi/suggest, ${TYPED.length} typed prefixes, every other call around a point, limit 10)`);
  if (index) {
    const before = index.state().memoryBytes;
    const t = performance.now();
    await index.prepareSuggest([o.datasetId]);
    const seconds = (performance.now() - t) / 1000;
    const mb = (index.state().memoryBytes - before) / 1024 / 1024;
    console.log(`    table build on the first suggest: ${seconds.toFixed(2)} s, ${mb.toFixed(1)} MB (${Math.round((mb * 1024 * 1024) / pois)} bytes per POI)`);
  }
  const cpuBefore = process.cpuUsage();
  const memory = await timeCalls(url, ITERATIONS, WARMUP, o.apiKey);
  // CPU time of this process (server and client) per call: unlike the latencies, not inflated when other work shares the cores.
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMsPerCall = (cpu.user + cpu.system) / 1000 / (ITERATIONS + WARMUP);
  console.log(
    `    from memory, client in this process: p50 ${fmt(memory.p50)} ms, p99 ${fmt(memory.p99)} ms over ${ITERATIONS} calls (${memory.empty} empty; ${cpuMsPerCall.toFixed(2)} ms of CPU per call, server and client)  (reported: the client's own work and garbage share the server's thread)`,
  );
  // The same calls from a client in its own process (bench/latency-worker.mjs, one keep-alive
  // connection, one call at a time), as an application calls the API: the target is judged here.
  const paths = Array.from({ length: WARMUP + ITERATIONS }, (_, i) => url(i).slice(o.base.length));
  const times = (await runJsonWorker<number[]>('./latency-worker.mjs', { base: o.base, paths, headers: { 'x-api-key': o.apiKey } })).slice(WARMUP).sort((a, b) => a - b);
  const external = { p50: pct(times, 50), p99: pct(times, 99) };
  const ok = o.kind !== 'postgres' || (external.p50 <= 1 && external.p99 <= 5);
  console.log(
    `    from memory, client in its own process: p50 ${fmt(external.p50)} ms, p99 ${fmt(external.p99)} ms over ${ITERATIONS} calls  target p50≤1 p99≤5 ${o.kind === 'postgres' ? (ok ? 'PASS' : 'FAIL') : '(reported)'}`,
  );
  results.push({ engine: o.kind, pois, label: 'suggest from memory, client in its own process', http: external, raw: memory, ok });
  index?.setEnabled(false);
  try {
    const sql = await timeCalls((i) => url(i * 7), SQL_CALLS, 1, o.apiKey);
    console.log(`    from PostgreSQL (fallback, ${SQL_CALLS} calls): p50 ${fmt(sql.p50)} ms, max ${fmt(sql.p99)} ms`);
  } finally {
    index?.setEnabled(true);
  }
  return results;
}
