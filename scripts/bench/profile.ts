// Summaries of the .cpuprofile files `npm run bench -- --profile` makes: where the server's time went.
import { readFile } from 'node:fs/promises';

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
