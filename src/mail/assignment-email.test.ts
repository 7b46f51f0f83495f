// The assignment email as rendered (docs/api.md §8 and §14): what both parts show (only the facts that
// are set), the link in both, markup no field can inject into, and HTML a mail program can show:
// tables and inline styles, nothing loaded but the cover, readable with images off.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { visibleText } from '../../test/support/notification-helpers.ts';
import {
  DESCRIPTION_MAX,
  EMAIL_WIDTH,
  renderAssignmentEmail,
  senderDisplayName,
  shortDescription,
  type AssignmentEmail,
} from './assignment-email.ts';
import { NASTY } from '../../test/support/nasty-strings.ts';

const URL = 'https://photos.example/g/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const COVER = `${URL}/cover.jpg`;

const base: AssignmentEmail = {
  studioName: 'Harbour Light',
  clientName: 'Ann Lee',
  address: '12 Quay Street',
  beds: 3,
  baths: 2,
  sqft: 1450,
  description: 'Sea views from every room.\nNewly renovated kitchen.',
  photos: 12,
  videos: 1,
  documents: 2,
  galleryUrl: URL,
  coverUrl: COVER,
  coverSize: { width: 2048, height: 1365 },
};

/** The markup of a render: its tags, in order (an alt text, which holds the address, as ""). */
const tags = (html: string): string[] =>
  (html.match(/<[^>]*>/g) ?? []).map((t) => t.replace(/\salt="[^"]*"/, ' alt=""'));
/** Every attribute value of that name, decoded of the one escape a URL needs here. */
const attributes = (html: string, name: string): string[] =>
  [...html.matchAll(new RegExp(`\\s${name}="([^"]*)"`, 'g'))].map((m) => (m[1] ?? '').replace(/&amp;/g, '&'));
const images = (html: string): string[] => html.match(/<img\b[^>]*>/g) ?? [];

describe('what both parts show', () => {
  test('the subject names the studio and the address, on one line', () => {
    assert.equal(renderAssignmentEmail(base).subject, 'Harbour Light: your gallery for 12 Quay Street');
    const { subject } = renderAssignmentEmail({
      ...base,
      studioName: 'Evil\r\nBcc: victim@example.test',
      address: '1 Main St\nX-Injected: yes\u2028',
    });
    assert.doesNotMatch(subject, /[\r\n\u2028\u2029]/);
    assert.ok(subject.includes('Evil Bcc: victim@example.test'));
  });

  test('the studio, the client, the address, every set fact, the media counts and the description', () => {
    const { text, html } = renderAssignmentEmail({ ...base, baths: 2.5, sqft: 12_345.5 });
    for (const [part, shown] of [
      ['text', text],
      ['html', visibleText(html)],
    ] as const) {
      assert.ok(shown.includes('Harbour Light has shared a gallery with you.'), part);
      assert.ok(shown.includes('Hello Ann Lee,'), part);
      assert.ok(shown.includes('12 Quay Street'), part);
      assert.match(shown, /Bedrooms\W+3\b/, part);
      assert.match(shown, /Bathrooms\W+2\.5\b/, part);
      assert.match(shown, /Square feet\W+12,345\.5\b/, part);
      assert.match(shown, /12 photos, 1 video, 2 documents/, part);
      assert.ok(shown.includes('Sea views from every room.'), part);
      assert.ok(shown.includes('Reply to this email to reach Harbour Light.'), part);
      assert.match(shown, /— Harbour Light\b/, part);
    }
    // The description's line break is kept in both.
    assert.ok(text.includes('Sea views from every room.\nNewly renovated kitchen.'));
    assert.ok(html.includes('Sea views from every room.<br>Newly renovated kitchen.'));
  });

  test('the link: a button and plain text in the HTML, a line of its own in the text part', () => {
    const { text, html } = renderAssignmentEmail(base);
    assert.ok(text.split('\n').includes(URL), 'the link on a line of its own');
    assert.ok(text.includes(`View your gallery:\n${URL}\n`));
    const button = /<a href="([^"]+)"[^>]*>View your gallery<\/a>/.exec(html);
    assert.equal(button?.[1], URL, 'the button opens the gallery');
    assert.ok(visibleText(html).includes(`Or open this link: ${URL}`), 'the link as text');
  });

  test('only the facts that are set: an unset one has neither label nor placeholder; 0 is set', () => {
    const none = renderAssignmentEmail({ ...base, beds: null, baths: null, sqft: null, description: null });
    for (const shown of [none.text, visibleText(none.html)]) {
      assert.doesNotMatch(shown, /Bedrooms|Bathrooms|Square feet|not given|null|undefined/);
      assert.ok(shown.includes('12 Quay Street'));
      assert.match(shown, /12 photos, 1 video, 2 documents/);
    }
    assert.doesNotMatch(none.html, /border-left/, 'no fact cells at all');
    const some = renderAssignmentEmail({ ...base, beds: 0, baths: null, sqft: 980 });
    for (const shown of [some.text, visibleText(some.html)]) {
      assert.match(shown, /Bedrooms\W+0\b/);
      assert.doesNotMatch(shown, /Bathrooms/);
      assert.match(shown, /Square feet\W+980\b/);
    }
    // Two facts share the row evenly.
    assert.equal((some.html.match(/<td width="50%"/g) ?? []).length, 2);
  });

  test('singular and plural counts', () => {
    const { text } = renderAssignmentEmail({ ...base, photos: 1, videos: 0, documents: 1 });
    assert.match(text, /1 photo, 0 videos, 1 document\b/);
    assert.match(renderAssignmentEmail({ ...base, photos: 1234 }).text, /1,234 photos/);
  });

  test('a blank description is left out; a long one is shortened at a word, the gallery has the rest', () => {
    for (const description of [null, undefined, '', '  \n ']) {
      const { text, html } = renderAssignmentEmail({ ...base, description });
      assert.ok(text.includes('In the gallery: 12 photos, 1 video, 2 documents\n\nView your gallery:'), text);
      assert.doesNotMatch(html, /color:#3d3934/, 'no description cell');
    }
    const long = `${'word '.repeat(400)}END`;
    const shown = shortDescription(long) ?? '';
    assert.ok(shown.length <= DESCRIPTION_MAX + 1 && shown.endsWith('…'), shown);
    assert.ok(shown.slice(0, -1).endsWith('word'), 'cut between words');
    assert.ok(renderAssignmentEmail({ ...base, description: long }).text.includes(shown));
    assert.equal(shortDescription('  Short.\r\nTwo lines. '), 'Short.\nTwo lines.');
  });
});

describe('escaping', () => {
  for (const field of ['studioName', 'clientName', 'address', 'description', 'senderName'] as const) {
    test(`${field}: markup is shown as text and never becomes markup`, () => {
      // A description's line breaks are <br>: the reference's is one line, like the values tried.
      const oneLineBase = { ...base, description: 'Sea views.' };
      const reference = tags(renderAssignmentEmail(oneLineBase).html);
      for (const value of NASTY) {
        const { html, text } = renderAssignmentEmail({ ...oneLineBase, [field]: value });
        assert.deepEqual(tags(html), reference, `${field} = ${value} changed the markup`);
        assert.ok(visibleText(html).includes(value.replace(/\s+/g, ' ')), `${field} = ${value} is not shown as typed`);
        assert.ok(text.includes(value), 'the text part shows it verbatim');
      }
    });
  }

  test('the link and the cover URL are escaped in their attributes', () => {
    const galleryUrl = 'https://photos.example/g/x"onmouseover="alert(1)';
    const { html } = renderAssignmentEmail({ ...base, galleryUrl, coverUrl: `${galleryUrl}/cover.jpg` });
    assert.doesNotMatch(html, /"onmouseover=/);
    const hrefs = attributes(html, 'href').map((href) => href.replace(/&quot;/g, '"'));
    assert.ok(hrefs.length === 3 && hrefs.every((href) => href === galleryUrl), hrefs.join());
    assert.match(html, /alt="Cover photo: 12 Quay Street"/);
  });

  test('the portal (docs/api.md §28): below the gallery link in both parts, escaped; none when not given', () => {
    const portalUrl = 'https://photos.example/c/p"onclick="x';
    const { html, text } = renderAssignmentEmail({ ...base, portalUrl });
    assert.doesNotMatch(html, /"onclick=/);
    const hrefs = attributes(html, 'href').map((href) => href.replace(/&quot;/g, '"'));
    assert.equal(hrefs.at(-1), portalUrl);
    assert.ok(html.indexOf('All your galleries from') > html.lastIndexOf(base.galleryUrl));
    assert.ok(text.indexOf(portalUrl) > text.indexOf(base.galleryUrl));
    assert.ok(!renderAssignmentEmail(base).text.includes('All your galleries'));
  });
});

describe('HTML a mail program shows', () => {
  test('no stylesheet, no script, nothing loaded from anywhere but the link', () => {
    const { html } = renderAssignmentEmail(base);
    assert.doesNotMatch(html, /<(style|script|link|iframe|object|embed|form|base|meta http-equiv)\b/i);
    assert.doesNotMatch(html, /@import|url\(|javascript:|\son[a-z]+=/i);
    assert.doesNotMatch(html, /\sclass=/, 'classes would need a stylesheet: every style is inline');
    assert.deepEqual(attributes(html, 'src'), [COVER], 'the cover is the only resource');
    assert.ok(
      attributes(html, 'href').every((href) => href === URL),
      'every link opens the gallery',
    );
    assert.deepEqual(attributes(html, 'srcset'), []);
    assert.deepEqual(attributes(html, 'background'), []);
  });

  test('laid out with tables of a fixed content width, fluid on a phone', () => {
    const { html } = renderAssignmentEmail(base);
    assert.match(html, new RegExp(`<table role="presentation" width="${EMAIL_WIDTH}"[^>]*max-width:${EMAIL_WIDTH}px`));
    for (const table of html.match(/<table\b[^>]*>/g) ?? []) {
      assert.match(table, /role="presentation"/);
      assert.match(table, /cellpadding="0" cellspacing="0" border="0"/);
    }
    assert.doesNotMatch(html, /<(div|p)\b[^>]*\sstyle="[^"]*(float|position|display:\s*flex|display:\s*grid)/);
  });

  test('the cover: its size given, full width or a portrait centred, alt text on a coloured cell', () => {
    const landscape = images(renderAssignmentEmail(base).html);
    assert.equal(landscape.length, 1);
    const [img = ''] = landscape;
    assert.match(img, /\swidth="600" height="400"/);
    assert.match(img, /\salt="Cover photo: 12 Quay Street"/);
    assert.match(img, /style="display:block;width:100%;max-width:600px;height:auto;border:0/);
    assert.match(img, /background-color:#d8d2c8/, 'images off: the alt text sits on a colour');

    const [portrait = ''] = images(renderAssignmentEmail({ ...base, coverSize: { width: 1365, height: 2048 } }).html);
    assert.match(portrait, /\swidth="480" height="720"/);
    assert.match(portrait, /margin:0 auto;max-width:480px/);

    for (const coverSize of [null, undefined, { width: 0, height: 0 }]) {
      const [unknown = ''] = images(renderAssignmentEmail({ ...base, coverSize }).html);
      assert.match(unknown, /\swidth="600" alt=/, 'a fixed width, no height attribute');
      assert.match(unknown, /height:auto/);
    }
    const none = renderAssignmentEmail({ ...base, coverUrl: null });
    assert.deepEqual(images(none.html), []);
    assert.doesNotMatch(none.html, /bgcolor="#d8d2c8"/, 'no empty cover cell');
  });

  test('readable with images off: every image has alt text, every coloured cell a bgcolor', () => {
    const { html } = renderAssignmentEmail(base);
    for (const img of images(html)) assert.match(img, /\salt="[^"]+"/);
    // An address with markup is the alt text's words, escaped, never an attribute of its own.
    const [hostile = ''] = images(renderAssignmentEmail({ ...base, address: '"><b onclick="x">' }).html);
    assert.ok(hostile.includes('alt="Cover photo: &quot;&gt;&lt;b onclick=&quot;x&quot;&gt;"'), hostile);
    for (const cell of html.match(/<td\b[^>]*background-color[^>]*>/g) ?? []) assert.match(cell, /\sbgcolor="#/);
    // The button is a cell with a colour of its own, so it shows without any image.
    assert.match(html, /<td align="center" bgcolor="#1f1d1a"[^>]*><a href="[^"]+"[^>]*>View your gallery<\/a>/);
  });
});

describe('studio name and sender name', () => {
  test('the subject and text name the studio; the sender name signs it, or the studio name when unset', () => {
    const signed = renderAssignmentEmail({ ...base, studioName: 'Harbour Light', senderName: 'Harbour Bookings' });
    assert.equal(signed.subject, 'Harbour Light: your gallery for 12 Quay Street');
    assert.match(signed.text, /^Harbour Light has shared a gallery with you\.$/m);
    assert.match(signed.text, /^— Harbour Bookings$/m);
    assert.match(signed.html, /&mdash; Harbour Bookings<\/p>/);
    for (const senderName of [undefined, null, '  ']) {
      const plain = renderAssignmentEmail({ ...base, studioName: 'Harbour Light', senderName });
      assert.match(plain.text, /^— Harbour Light$/m, String(senderName));
    }
    assert.equal(senderDisplayName('Harbour Light', 'Bookings'), 'Bookings');
    assert.equal(senderDisplayName('Harbour Light', null), 'Harbour Light');
  });
});
