// The load generators for `npm run bench`, each in its own process so that it never shares an
// event loop with a server it measures: wrk (C, when installed: what the anchors were
// measured with) or autocannon (run as `load.ts --child`: reads one LoadSpec as JSON on stdin and
// prints one LoadResult as JSON on stdout).
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { text } from 'node:stream/consumers';

export interface LoadSpec {
  url: string;
  method: 'GET' | 'POST' | 'PATCH';
  /** Paths requested in turn, one after another across all connections. */
  paths: string[];
  headers: Record<string, string>;
  body?: string;
  /** Each request's body is this with every `{n}` replaced by the request's number (unique values). */
  bodyTemplate?: string;
  connections: number;
  seconds: number;
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statuses: Record<string, number>;
}

/** Runs one load in a child process (see packages/bench/src/bench.ts). */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  let next = 0;
  const result = await autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: spec.seconds,
    method: spec.method,
    headers: spec.headers,
    ...(spec.body === undefined ? {} : { body: spec.body }),
    requests: [
      {
        setupRequest: (request) => {
          const n = next++;
          const p = spec.paths[n % spec.paths.length] ?? '/';
          if (spec.bodyTemplate === undefined) return { ...request, path: p };
          return { ...request, path: p, body: spec.bodyTemplate.replaceAll('{n}', String(n)) };
        },
      },
    ],
  });
  const statuses: Record<string, number> = {};
  for (const [code, count] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = count.count ?? 0;
  return {
    requests: result.requests.total,
    // Completed requests per second over the run (autocannon's average of per-second samples).
    rps: result.requests.total / (result.duration || spec.seconds),
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statuses,
  };
}

/**
 * Runs one load with wrk (one thread, like the anchors): a Lua script rotates the paths and
 * prints the summary as JSON. wrk counts statuses >= 400 as errors; the API answers no 3xx here.
 */
export async function runWrk(spec: LoadSpec, scriptFile: string): Promise<LoadResult> {
  const lua = JSON.stringify;
  const headers = Object.entries(spec.headers).map(([k, v]) => `[${lua(k)}] = ${lua(v)}`);
  const script = [
    `wrk.method = ${lua(spec.method)}`,
    ...Object.entries(spec.headers).map(([k, v]) => `wrk.headers[${lua(k)}] = ${lua(v)}`),
    spec.body === undefined ? '' : `wrk.body = ${lua(spec.body)}`,
    `wrk.path = ${lua(spec.paths[0] ?? '/')}`,
    // A request() function costs wrk time per request: only where the path or the body changes.
    spec.paths.length <= 1 && spec.bodyTemplate === undefined
      ? ''
      : [
          `local paths = { ${spec.paths.map((p) => lua(p)).join(', ')} }`,
          `local headers = { ${headers.join(', ')} }`,
          spec.bodyTemplate === undefined ? '' : `local template = ${lua(spec.bodyTemplate)}`,
          'local i = 0',
          'request = function()',
          '  i = i + 1',
          spec.bodyTemplate === undefined
            ? '  local body = wrk.body'
            : '  local body = (string.gsub(template, "{n}", tostring(i - 1)))',
          `  return wrk.format(${lua(spec.method)}, paths[(i - 1) % #paths + 1], headers, body)`,
          'end',
        ].join('\n'),
    'done = function(summary, latency, requests)',
    '  local e = summary.errors',
    '  io.write(string.format(\'{"requests":%d,"duration":%d,"p50":%d,"p99":%d,"max":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}\\n\',',
    '    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,',
    '    e.connect, e.read, e.write, e.status, e.timeout))',
    'end',
  ].join('\n');
  await writeFile(scriptFile, script);
  const proc = spawn(
    'wrk',
    ['-t1', `-c${spec.connections}`, `-d${spec.seconds}s`, '--timeout', '10s', '-s', scriptFile, spec.url],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  proc.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const [code] = (await once(proc, 'close')) as [number | null];
  const line = out.split('\n').find((l) => l.startsWith('{"requests"'));
  if (code !== 0 || line === undefined) throw new Error(`wrk exited with ${String(code)}: ${out}`);
  const r = JSON.parse(line) as Record<string, number>;
  const n = (k: string): number => r[k] ?? 0;
  // No answer within the run at all: every connection's request failed to complete in time.
  if (n('requests') === 0) r.timeout = n('timeout') + spec.connections;
  return {
    requests: n('requests'),
    rps: n('requests') / (n('duration') / 1e6),
    p50: n('p50') / 1000,
    p99: n('p99') / 1000,
    max: n('max') / 1000,
    non2xx: n('status'),
    errors: n('connect') + n('read') + n('write'),
    timeouts: n('timeout'),
    statuses: {},
  };
}

// Only when this file is the entry point: other children (the receiver) import it with --child too.
if (process.argv[2] === '--child' && import.meta.filename === process.argv[1]) {
  const spec = JSON.parse(await text(process.stdin)) as LoadSpec;
  process.stdout.write(`${JSON.stringify(await runLoad(spec))}\n`);
}
