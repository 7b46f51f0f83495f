// Summaries of the .cpuprofile files `npm run bench -- --profile` makes: where the server's time went.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { flameGraphSvg } from './flamegraph.ts';

export interface ProfileLine {
  selfMs: number;
  percent: number;
  fn: string;
}

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: Node[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/**
 * A stretch of the profiled process's life, in microseconds of the monotonic clock: V8 stamps
 * its samples with it, and `process.hrtime` in any other process on the machine reads the same.
 */
export interface ProfileWindow {
  start: number;
  end: number;
}

/** The monotonic clock as a profile's timestamps count it (microseconds). */
export const profileClock = (): number => Number(process.hrtime.bigint() / 1000n);

const where = (root: string, frame: Node['callFrame'] | undefined): string => {
  const url = frame?.url.replace(`file://${root}`, '').replace(/^.*node_modules\//, '') ?? '';
  return `${frame?.functionName || '(anonymous)'} ${url === '' ? '' : `${url}:${(frame?.lineNumber ?? 0) + 1}`}`.trim();
};

/**
 * The functions with the most self time, and the packages (or source folders) they belong to;
 * only the samples inside `windows` when given.
 */
export async function profileTop(
  file: string,
  root: string,
  count = 25,
  windows?: readonly ProfileWindow[],
): Promise<{ functions: ProfileLine[]; packages: ProfileLine[] }> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  const packages = new Map<string, number>();
  let total = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (windows !== undefined && !windows.some((w) => at >= w.start && at <= w.end)) return;
    const frame = byId.get(id)?.callFrame;
    const fn = where(root, frame);
    self.set(fn, (self.get(fn) ?? 0) + delta);
    const url = frame?.url ?? '';
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? (url.startsWith(`file://${root}`) ? url.replace(`file://${root}`, '').split('/').slice(0, 2).join('/') : url === '' ? fn : 'node:internal'); // prettier-ignore
    packages.set(pkg, (packages.get(pkg) ?? 0) + delta);
    total += delta;
  });
  const top = (map: Map<string, number>): ProfileLine[] =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([fn, us]) => ({ selfMs: us / 1000, percent: (100 * us) / total, fn }));
  return { functions: top(self), packages: top(packages) };
}

/**
 * Inclusive time: for every function, the share of samples with it anywhere on the stack (once
 * per sample, however deep it recurs): where a request's time goes, stage by stage. Also writes
 * the profile's stacks in the folded format (`a;b;c <µs>`) that flamegraph.pl, speedscope and
 * inferno read, to `folded` when given, and their flame graph beside it (`.svg`).
 */
export async function profileInclusive(
  file: string,
  root: string,
  options: { count?: number; match?: (fn: string) => boolean; folded?: string } = {},
): Promise<ProfileLine[]> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const stackOf = new Map<number, string[]>();
  const stack = (id: number): string[] => {
    let found = stackOf.get(id);
    if (found === undefined) {
      const up = parent.get(id);
      found = [...(up === undefined ? [] : stack(up)), where(root, byId.get(id)?.callFrame)];
      stackOf.set(id, found);
    }
    return found;
  };
  const inclusive = new Map<string, number>();
  const folded = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    const frames = stack(id);
    for (const fn of new Set(frames)) inclusive.set(fn, (inclusive.get(fn) ?? 0) + delta);
    const line = frames.map((f) => f.replace(/[; ]/g, '_')).join(';');
    folded.set(line, (folded.get(line) ?? 0) + delta);
    total += delta;
  });
  if (options.folded !== undefined) {
    const text = [...folded.entries()].map(([k, v]) => `${k} ${Math.round(v)}`).join('\n') + '\n';
    await writeFile(options.folded, text);
    // The same stacks drawn (packages/bench/src/lib/flamegraph.ts), beside them.
    await writeFile(
      options.folded.replace(/\.folded$/, '') + '.svg',
      flameGraphSvg(text, { title: path.basename(file) }),
    );
  }
  return [...inclusive.entries()]
    .filter(([fn]) => options.match?.(fn) ?? true)
    .sort((a, b) => b[1] - a[1])
    .slice(0, options.count ?? 30)
    .map(([fn, us]) => ({ selfMs: us / 1000, percent: (100 * us) / total, fn }));
}
