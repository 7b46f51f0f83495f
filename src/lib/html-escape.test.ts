// One escape for all HTML the service writes: the dashboard's pages and the email's HTML part.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as dashboardHtml from './html.ts';
import { escapeHtml } from './html-escape.ts';
import { renderAssignmentEmail } from '../mail/templates.ts';

const HOSTILE = `<script>alert("x")</script> & 'quoted'`;

describe('escapeHtml, shared', () => {
  test('the dashboard and the email escape the same way', () => {
    assert.equal(dashboardHtml.html`${HOSTILE}`.toString(), escapeHtml(HOSTILE));
    const email = renderAssignmentEmail({
      studioName: HOSTILE,
      clientName: 'Client',
      address: '1 Road',
      beds: null,
      baths: null,
      galleryUrl: 'https://photos.example/g/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      coverUrl: null,
      sqft: null,
      photos: 0,
      videos: 0,
      documents: 0,
    });
    assert.ok(email.html.includes(escapeHtml(HOSTILE)));
    assert.ok(!email.html.includes('<script>'));
  });

  test('the dashboard offers no way to insert a string unescaped', () => {
    assert.deepEqual(Object.keys(dashboardHtml).sort(), ['SafeHtml', 'html']);
  });
});
