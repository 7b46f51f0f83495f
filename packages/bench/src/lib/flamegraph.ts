// A flame graph, as a static SVG, from stacks in the folded format (`a;b;c <value>` a line), the
// format `--profile` writes beside each CPU profile. Drawn as flamegraph.pl draws them: the root
// at the bottom, each frame as wide as its share of the samples, siblings in name order, colour
// from the name; hovering a frame shows its name, time and share. Hand-written: the npm package
// `flamegraph` (unmaintained) reads only perf output and DevTools profiles, and the maintained
// renderers (inferno, flamegraph.pl, speedscope) are not npm libraries that return an SVG.
//
//   node packages/bench/src/lib/flamegraph.ts <in.folded> <out.svg> [--title T] [--keep-idle]
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

interface Frame {
  name: string;
  value: number;
  children: Map<string, Frame>;
}

export interface FlameGraphOptions {
  title: string;
  /** Width of the drawing in pixels (default 1200). */
  width?: number;
  /** Frames narrower than this many pixels are left out (default 0.3). */
  minWidth?: number;
  /** Stacks to leave out, by their frames (default: those ending in `(idle)`). */
  omit?: (frames: string[]) => boolean;
  /** What a value is, for the tooltips (default µs). */
  unit?: string;
}

const FRAME_HEIGHT = 16;
const FONT_SIZE = 11;
/** Average glyph width relative to the font size (for truncating labels to their frame). */
const GLYPH = 0.6;
const TOP = 36;

const escapeXml = (text: string): string =>
  text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c);

/** A warm colour from the name, the same for the same name in every graph. */
function colour(name: string): string {
  let h = 2166136261;
  for (let i = 0; i < name.length; i += 1) h = Math.imul(h ^ name.charCodeAt(i), 16777619);
  const n = (h >>> 0) / 2 ** 32;
  const own = name.includes(' src/');
  // Lightbox's own code in orange-red, everything else (Node, libraries, V8) in yellow-orange.
  return own ? `hsl(${Math.round(5 + n * 20)}, 80%, ${Math.round(55 + n * 10)}%)` : `hsl(${Math.round(30 + n * 25)}, 85%, ${Math.round(55 + n * 10)}%)`; // prettier-ignore
}

/** Parses folded stacks into a tree whose root (`all`) holds every kept sample. */
export function foldedTree(text: string, omit: (frames: string[]) => boolean): Frame {
  const root: Frame = { name: 'all', value: 0, children: new Map() };
  for (const line of text.split('\n')) {
    const space = line.lastIndexOf(' ');
    if (space <= 0) continue;
    const value = Number(line.slice(space + 1));
    if (!Number.isFinite(value) || value <= 0) continue;
    const frames = line.slice(0, space).split(';');
    if (omit(frames)) continue;
    root.value += value;
    let at = root;
    for (const name of frames) {
      let child = at.children.get(name);
      if (child === undefined) {
        child = { name, value: 0, children: new Map() };
        at.children.set(name, child);
      }
      child.value += value;
      at = child;
    }
  }
  return root;
}

const depthOf = (frame: Frame): number =>
  frame.children.size === 0 ? 0 : 1 + Math.max(...[...frame.children.values()].map(depthOf));

/** The SVG of a flame graph of `folded` (the text of a .folded file). */
export function flameGraphSvg(folded: string, options: FlameGraphOptions): string {
  const width = options.width ?? 1200;
  const minWidth = options.minWidth ?? 0.3;
  const unit = options.unit ?? 'µs';
  const omit = options.omit ?? ((frames: string[]) => frames.at(-1) === '(idle)');
  const root = foldedTree(folded, omit);
  const depth = depthOf(root);
  const height = TOP + (depth + 1) * FRAME_HEIGHT + 8;
  const scale = root.value === 0 ? 0 : width / root.value;
  const parts: string[] = [];

  const draw = (frame: Frame, x: number, level: number): void => {
    const w = frame.value * scale;
    if (w < minWidth) return;
    const y = height - 8 - (level + 1) * FRAME_HEIGHT;
    const share = root.value === 0 ? 0 : (100 * frame.value) / root.value;
    const label = frame.name.replace(/_(?=(node:|src\/|[a-z@][\w./@-]*:\d+$))/, ' ');
    const fits = Math.floor((w - 6) / (FONT_SIZE * GLYPH));
    const text = fits < 3 ? '' : label.length <= fits ? label : `${label.slice(0, fits - 2)}..`;
    parts.push(
      `<g><title>${escapeXml(`${label} (${Math.round(frame.value).toLocaleString('en')} ${unit}, ${share.toFixed(2)}%)`)}</title>` +
        `<rect x="${x.toFixed(2)}" y="${y}" width="${w.toFixed(2)}" height="${FRAME_HEIGHT - 1}" rx="2" fill="${colour(frame.name)}"/>` +
        (text === '' ? '' : `<text x="${(x + 3).toFixed(2)}" y="${y + FRAME_HEIGHT - 4}">${escapeXml(text)}</text>`) +
        '</g>',
    );
    let cx = x;
    for (const child of [...frame.children.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      draw(child, cx, level + 1);
      cx += child.value * scale;
    }
  };
  draw(root, 0, 0);

  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ` +
    `font-family="Verdana, sans-serif" font-size="${FONT_SIZE}">\n` +
    `<rect width="100%" height="100%" fill="#fdfaf0"/>\n` +
    `<text x="${width / 2}" y="20" text-anchor="middle" font-size="15">${escapeXml(options.title)}</text>\n` +
    `<text x="4" y="${TOP - 6}" font-size="10" fill="#555">${escapeXml(`${Math.round(root.value).toLocaleString('en')} ${unit} of samples; width = share of them; hover a frame for its figures`)}</text>\n` + // prettier-ignore
    parts.join('\n') +
    '\n</svg>\n'
  );
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      title: { type: 'string', default: 'CPU flame graph' },
      'keep-idle': { type: 'boolean', default: false },
    },
  });
  const [input, output] = positionals;
  if (input === undefined || output === undefined) {
    console.error('usage: node packages/bench/src/lib/flamegraph.ts <in.folded> <out.svg> [--title T] [--keep-idle]');
    process.exit(2);
  }
  const svg = flameGraphSvg(await readFile(input, 'utf8'), {
    title: values.title,
    ...(values['keep-idle'] ? { omit: () => false } : {}),
  });
  await writeFile(output, svg);
  console.log(`wrote ${output}`);
}

if (import.meta.filename === process.argv[1]) await main();
