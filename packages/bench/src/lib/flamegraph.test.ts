// The bench's flame graph renderer (packages/bench/src/lib/flamegraph.ts): folded stacks in, an SVG whose
// frames are as wide as their share of the samples, names escaped, idle left out by default.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { flameGraphSvg, foldedTree } from './flamegraph.ts';

/** The frames drawn: name (from the tooltip) → width in pixels. */
function frames(svg: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of svg.matchAll(
    /<title>([^<]*?) \([\d,]+ µs, [\d.]+%\)<\/title><rect x="[\d.]+" y="\d+" width="([\d.]+)"/g,
  )) {
    out.set(m[1] as string, Number(m[2]));
  }
  return out;
}

describe('flame graphs of folded stacks', () => {
  const folded = ['main;read;sqlite 30', 'main;write 10', 'main;read 20', 'gc 40', '(root);(idle) 900', 'junk line', ''].join('\n'); // prettier-ignore

  test('each frame is as wide as its share of the kept samples', () => {
    const svg = flameGraphSvg(folded, { title: 'T', width: 1000 });
    const drawn = frames(svg);
    assert.equal(drawn.get('all'), 1000);
    assert.equal(drawn.get('main'), 600);
    assert.equal(drawn.get('read'), 500);
    assert.equal(drawn.get('sqlite'), 300);
    assert.equal(drawn.get('write'), 100);
    assert.equal(drawn.get('gc'), 400);
    assert.equal(drawn.has('(idle)'), false, 'idle is left out by default');
    assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  });

  test('the tree sums every stack into its frames', () => {
    const root = foldedTree(folded, () => false);
    assert.equal(root.value, 1000);
    assert.equal(root.children.get('main')?.children.get('read')?.value, 50);
    assert.equal(root.children.get('(root)')?.value, 900);
  });

  test('names are escaped, and frames too narrow to see are left out', () => {
    const svg = flameGraphSvg('a<b>&"c";tiny 1\na<b>&"c" 99999', { title: '<T>', width: 100 });
    assert.ok(svg.includes('a&lt;b&gt;&amp;&quot;c&quot;'));
    assert.ok(svg.includes('&lt;T&gt;'));
    assert.ok(!svg.includes('<b>'));
    assert.equal(frames(svg).has('tiny'), false);
  });
});
