// The password reset email, and the helpers every email shares (the assignment email has its own
// suite, assignment-email.test.ts): what both parts show, and HTML that no field can inject markup into.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { visibleText } from '../../test/support/notification-helpers.ts';
import { escapeHtml } from '../lib/html-escape.ts';
import { oneLine, renderPasswordResetEmail } from './templates.ts';
import { NASTY } from '../../test/support/nasty-strings.ts';

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
