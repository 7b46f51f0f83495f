// docs/api.md §28: which tour URLs are embedded, and in which provider's player. Every form the
// README lists maps to its player on the provider's one frame host; anything else is a link.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { TOUR_FRAME_SRC, TOUR_PROVIDERS, tourEmbed } from './tours.ts';

const EMBEDDED: [string, string][] = [
  ['https://my.matterport.com/show/?m=SxQL3iGyoDo', 'https://my.matterport.com/show/?m=SxQL3iGyoDo'],
  ['https://my.matterport.com/show?m=SxQL3iGyoDo&play=1', 'https://my.matterport.com/show/?m=SxQL3iGyoDo'],
  ['https://discover.matterport.com/space/SxQL3iGyoDo', 'https://my.matterport.com/show/?m=SxQL3iGyoDo'],
  [
    'https://www.zillow.com/view-imx/5b1e6d1e-4b6c-4b1f-9a55-0c1f6a3b2e11?setAttribution=mls&wl=true',
    'https://www.zillow.com/view-imx/5b1e6d1e-4b6c-4b1f-9a55-0c1f6a3b2e11?setAttribution=mls&wl=true',
  ],
  [
    'https://www.zillow.com/view-3d-home/abc123def456/',
    'https://www.zillow.com/view-imx/abc123def456?setAttribution=mls&wl=true',
  ],
  ['https://youriguide.com/12_harbour_rd_portsmouth/', 'https://youriguide.com/embed/12_harbour_rd_portsmouth'],
  ['https://youriguide.com/embed/12_harbour_rd_portsmouth', 'https://youriguide.com/embed/12_harbour_rd_portsmouth'],
  ['https://kuula.co/post/7lXjH', 'https://kuula.co/share/7lXjH'],
  ['https://kuula.co/share/7lXjH?fs=1&vr=0', 'https://kuula.co/share/7lXjH'],
  ['https://kuula.co/share/collection/71mp3', 'https://kuula.co/share/collection/71mp3'],
  ['https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s', 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ'],
  ['https://youtu.be/dQw4w9WgXcQ', 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ'],
  ['https://m.youtube.com/watch?v=dQw4w9WgXcQ', 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ'],
  ['https://www.youtube.com/shorts/dQw4w9WgXcQ', 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ'],
  ['https://www.youtube.com/embed/dQw4w9WgXcQ', 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ'],
  ['https://vimeo.com/76979871', 'https://player.vimeo.com/video/76979871?dnt=1'],
  ['https://vimeo.com/76979871/8272103f6e', 'https://player.vimeo.com/video/76979871?h=8272103f6e&dnt=1'],
  [
    'https://player.vimeo.com/video/76979871?h=8272103f6e',
    'https://player.vimeo.com/video/76979871?h=8272103f6e&dnt=1',
  ],
];

const LINKS = [
  'https://example.com/tour',
  'http://www.youtube.com/watch?v=dQw4w9WgXcQ', // not https
  'https://www.youtube.com/watch?v=short', // not an id
  'https://www.youtube.com.evil.example/watch?v=dQw4w9WgXcQ',
  'https://evil.example/?u=https://youtu.be/dQw4w9WgXcQ',
  'https://user:pw@youtu.be/dQw4w9WgXcQ',
  'https://youtu.be:8443/dQw4w9WgXcQ',
  'https://vimeo.com/channels/staffpicks',
  'https://vimeo.com/76979871/"onload=x',
  'https://my.matterport.com/models/SxQL3iGyoDo',
  'https://kuula.co/profile/someone/extra',
  'https://youriguide.com/',
  'https://www.zillow.com/homedetails/12-Harbour-Rd/123_zpid/',
  'not a url',
];

test('every listed form maps to its player on the provider frame host', () => {
  for (const [url, src] of EMBEDDED) {
    const embed = tourEmbed(url);
    assert.equal(embed?.src, src, url);
    const host = new URL(src).hostname;
    assert.equal(TOUR_PROVIDERS[embed.provider].frameHost, host, url);
  }
  // Every provider is covered by the forms above.
  const seen = new Set(EMBEDDED.map(([url]) => tourEmbed(url)?.provider));
  assert.deepEqual([...seen].sort(), Object.keys(TOUR_PROVIDERS).sort());
});

test('any other URL is a link, not a frame', () => {
  for (const url of LINKS) assert.equal(tourEmbed(url), undefined, url);
});

test('frame-src names exactly the six players, over https', () => {
  assert.deepEqual(TOUR_FRAME_SRC.split(' ').sort(), [
    'https://kuula.co',
    'https://my.matterport.com',
    'https://player.vimeo.com',
    'https://www.youtube-nocookie.com',
    'https://www.zillow.com',
    'https://youriguide.com',
  ]);
});

test('the README lists every provider, with the host its player plays from', async () => {
  const readme = await readFile(new URL('../../../README.md', import.meta.url), 'utf8');
  for (const { name, frameHost } of Object.values(TOUR_PROVIDERS)) {
    const row = readme.split('\n').find((line) => line.startsWith(`| ${name} `));
    assert.ok(row !== undefined, `no README row for ${name}`);
    const cells = row.split('|').map((cell) => cell.trim());
    assert.equal(cells.at(-2), `\`${frameHost}\``, row);
  }
});
