// The client as an integrator installs it: `npm pack` of packages/client (its prepack builds
// dist/), then `npm install` of the tarball into a fresh project (its one dependency comes from
// the npm registry). Used by scripts/client-pack.ts and the README test.
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

export function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): string {
  return execFileSync(cmd, args, {
    cwd,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

/**
 * Packs the client into `dir` and installs the tarball into `dir/project`, made with `init`
 * (`['init', '-y']`, or nothing: a bare ESM package.json). Returns the project's path and the
 * tarball's name.
 */
export async function installPackedClient(
  dir: string,
  init: 'npm init -y' | 'bare' = 'bare',
): Promise<{ project: string; tarball: string }> {
  run(npm, ['pack', '--workspace', '@lightbox/client', '--pack-destination', dir], root);
  const tarball = (await readdir(dir)).find((f) => f.endsWith('.tgz'));
  if (tarball === undefined) throw new Error('npm pack made no tarball');
  const project = path.join(dir, 'project');
  await mkdir(project);
  if (init === 'npm init -y') run(npm, ['init', '-y'], project);
  else {
    await writeFile(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'integration', private: true, type: 'module' }),
    );
  }
  run(npm, ['install', '--no-audit', '--no-fund', path.join(dir, tarball)], project);
  return { project, tarball };
}
