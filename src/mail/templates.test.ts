// The assignment email's text (section 8): what both parts show, and HTML that no studio, client
// or gallery field can inject markup into.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { visibleText } from '../../test/support/notification-helpers.ts';
import { escapeHtml } from '../lib/html-escape.ts';
import {
  oneLine,
  renderAssignmentEmail,
  renderPasswordResetEmail,
  senderDisplayName,
  type AssignmentEmail,
} from './templates.ts';

const base: AssignmentEmail = {
  studioName: 'Harbour Light',
  clientName: 'Ann Lee',
  address: '12 Quay Street',
  beds: 3,
  baths: 2,
  sqft: 1450,
  photos: 12,
  videos: 1,
  documents: 2,
  galleryUrl: 'https://photos.example/g/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  coverUrl: null,
};

const NASTY = [
  '<script>alert(1)</script>',
  '<b>bold</b> & <i>italic</i>',
  '"><img src=x onerror=alert(1)>',
  "' onmouseover='alert(1)",
  '&lt;already escaped&gt; &amp;',
  '</td></tr></table><a href="javascript:alert(1)">x</a>',
  '<!-- comment --> <![CDATA[x]]>',
  'Ünïcödé — 東京 😀',
];

/** The markup of a render: its tags, in order. */
const tags = (html: string): string[] => html.match(/<[^>]*>/g) ?? [];

describe('escapeHtml', () => {
  test('escapes the five HTML-significant characters, and nothing else', () => {
    assert.equal(
      escapeHtml(`<a href="x" title='y'>&</a>`),
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
    assert.equal(escapeHtml('plain text, 東京 — 😀'), 'plain text, 東京 — 😀');
    assert.equal(escapeHtml('&amp;'), '&amp;amp;', 'escaped text is escaped again, never trusted');
  });
});

describe('oneLine', () => {
  test('line breaks of every kind become spaces; the ends are trimmed', () => {
    assert.equal(oneLine('a\r\nb\nc\rd\u2028e\u2029f'), 'a b c d e f');
    assert.equal(oneLine('\r\n  x  \n'), 'x');
  });
});

describe('renderAssignmentEmail', () => {
  test('the subject names the studio and the address', () => {
    const { subject } = renderAssignmentEmail(base);
    assert.ok(subject.includes('Harbour Light') && subject.includes('12 Quay Street'), subject);
  });

  test('both parts show the address, beds, baths, sqft and the media counts', () => {
    const { text, html } = renderAssignmentEmail({ ...base, baths: 2.5, sqft: 12_345.5 });
    for (const shown of [text, visibleText(html)]) {
      assert.ok(shown.includes('12 Quay Street'));
      assert.match(shown, /Bedrooms\W+3\b/);
      assert.match(shown, /Bathrooms\W+2\.5\b/);
      assert.match(shown, /Square feet\W+12,345\.5\b/);
      assert.match(shown, /12 photos, 1 video, 2 documents/);
      assert.ok(shown.includes('Ann Lee') && shown.includes('Harbour Light'));
    }
  });

  test('singular and plural counts, and unset figures', () => {
    const { text } = renderAssignmentEmail({
      ...base,
      beds: null,
      baths: null,
      sqft: null,
      photos: 1,
      videos: 0,
      documents: 1,
    });
    assert.match(text, /1 photo, 0 videos, 1 document\b/);
    assert.match(text, /Bedrooms: not given/);
    assert.match(text, /Bathrooms: not given/);
    assert.match(text, /Square feet: not given/);
    const zero = renderAssignmentEmail({ ...base, beds: 0, baths: 0, sqft: 0 }).text;
    assert.match(zero, /Bedrooms: 0\b/);
  });

  for (const field of ['studioName', 'clientName', 'address'] as const) {
    test(`${field}: markup is shown as text and never becomes markup`, () => {
      const reference = tags(renderAssignmentEmail(base).html);
      for (const value of NASTY) {
        const { html, text } = renderAssignmentEmail({ ...base, [field]: value });
        assert.deepEqual(tags(html), reference, `${field} = ${value} changed the markup`);
        assert.ok(visibleText(html).includes(value.replace(/\s+/g, ' ')), `${field} = ${value} is not shown as typed`);
        assert.ok(text.includes(value), 'the text part shows it verbatim');
      }
    });
  }

  test('the subject is one line, whatever the studio name or address hold', () => {
    const { subject } = renderAssignmentEmail({
      ...base,
      studioName: 'Evil\r\nBcc: victim@example.test',
      address: '1 Main St\nX-Injected: yes\u2028',
    });
    assert.doesNotMatch(subject, /[\r\n\u2028\u2029]/);
    assert.ok(subject.includes('Evil Bcc: victim@example.test'));
  });
});

describe('studio name and sender name', () => {
  test('the subject and text name the studio; the sender name signs it, or the studio name when unset', () => {
    const signed = renderAssignmentEmail({ ...base, studioName: 'Harbour Light', senderName: 'Harbour Bookings' });
    assert.equal(signed.subject, 'Harbour Light: your gallery for 12 Quay Street');
    assert.match(signed.text, /^Harbour Light has shared a gallery with you\.$/m);
    assert.match(signed.text, /^— Harbour Bookings$/m);
    assert.match(signed.html, /<p>&mdash; Harbour Bookings<\/p>/);
    for (const senderName of [undefined, null, '  ']) {
      const plain = renderAssignmentEmail({ ...base, studioName: 'Harbour Light', senderName });
      assert.match(plain.text, /^— Harbour Light$/m, String(senderName));
    }
    assert.equal(senderDisplayName('Harbour Light', 'Bookings'), 'Bookings');
    assert.equal(senderDisplayName('Harbour Light', null), 'Harbour Light');
  });

  test('a sender name is escaped in the HTML like every other field', () => {
    const { html } = renderAssignmentEmail({ ...base, senderName: '<script>alert(1)</script>' });
    assert.ok(!html.includes('<script>'));
    assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
  });
});

describe('renderPasswordResetEmail', () => {
  const reset = {
    studioName: 'Harbour Light',
    resetUrl: 'http://127.0.0.1:3000/dashboard/reset-password?token=abc_DEF-123',
    validMinutes: 30,
  };

  test('both parts name the studio, give the link and say how long it works', () => {
    const { subject, text, html } = renderPasswordResetEmail(reset);
    assert.equal(subject, 'Reset your Lightbox password for Harbour Light');
    for (const shown of [text, visibleText(html)]) {
      assert.ok(shown.includes('Harbour Light'));
      assert.ok(shown.includes(reset.resetUrl));
      assert.match(shown, /works once, within 30 minutes/);
      assert.match(shown, /If you did not ask for it, ignore this email/);
    }
    assert.ok(html.includes(`<a href="${reset.resetUrl}"`));
    // The link on a line of its own in the text part, so every mail program makes it clickable.
    assert.ok(text.split('\n').includes(reset.resetUrl));
  });

  test('a studio name is text in both parts: no markup, and one line in the subject', () => {
    const reference = tags(renderPasswordResetEmail(reset).html);
    for (const value of NASTY) {
      const { html, text } = renderPasswordResetEmail({ ...reset, studioName: value });
      assert.deepEqual(tags(html), reference, `studioName = ${value} changed the markup`);
      assert.ok(visibleText(html).includes(value.replace(/\s+/g, ' ')));
      assert.ok(text.includes(value));
    }
    const { subject } = renderPasswordResetEmail({ ...reset, studioName: 'Evil\r\nBcc: victim@example.test' });
    assert.doesNotMatch(subject, /[\r\n]/);
  });
});
