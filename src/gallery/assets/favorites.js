// Favorites without a page reload (docs/api.md §25): each heart is a real form with a real button,
// posting to /g/<token>/favorites/<media_id>; this script sends the same form with fetch, asking for
// JSON, then turns the heart (aria-pressed), and updates the count, the "Download favorites" link
// and the send button. Without this script, or if a request fails, the form posts as it always does.
// A mark past the link's maximum (docs/api.md §28) is refused: the heart stays off and the page says
// why, in the same words as without the script. Comments (§28) are saved the same way.
const section = document.getElementById('favorites');
const grid = document.getElementById('photo-grid');

/** The heart as the server would render it. */
function show(form, on) {
  const button = form.querySelector('button');
  const next = form.querySelector('input[name="on"]');
  const glyph = button && button.querySelector('[aria-hidden="true"]');
  if (!button || !next || !glyph) return;
  button.classList.toggle('favorite--on', on);
  button.setAttribute('aria-pressed', on ? 'true' : 'false');
  glyph.textContent = on ? '\u2665' : '\u2661';
  next.value = on ? '0' : '1';
}

/** The refusal message of the selection (role="alert": read out when it appears), or none. */
function showRefusal(text) {
  const message = section && section.querySelector('[data-selection-message]');
  if (!message) return;
  message.textContent = text || '';
  message.hidden = !text;
}

function showCount(count) {
  if (!section) return;
  const counter = section.querySelector('[data-favorites-count]');
  if (counter) counter.textContent = count.toLocaleString('en-US');
  const zip = section.querySelector('[data-favorites-zip]');
  const link = zip && zip.querySelector('a');
  const form = section.querySelector('form.selection__form');
  if (zip && link && form) {
    zip.hidden = count === 0;
    // /g/<token>/favorites.zip: the send form's action, /g/<token>/favorites, and .zip.
    if (count === 0) link.removeAttribute('href');
    else link.setAttribute('href', `${form.getAttribute('action')}.zip`);
  }
  const send = section.querySelector('[data-favorites-send]');
  if (send) send.disabled = count === 0;
  // "Sent" no longer describes the selection once it changes.
  const sent = section.querySelector('.selection__sent');
  if (sent) sent.remove();
}

if (grid && section && typeof window.fetch === 'function') {
  // Answers can arrive out of order when hearts are tapped quickly: the count is the newest one's.
  let requests = 0;
  grid.addEventListener('submit', (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.classList.contains('tile__favorite')) return;
    event.preventDefault();
    const button = form.querySelector('button');
    const next = form.querySelector('input[name="on"]');
    if (!button || !next || button.getAttribute('aria-busy') === 'true') return;
    const wanted = next.value === '1';
    button.setAttribute('aria-busy', 'true');
    requests += 1;
    const mine = requests;
    // At once, as a tap expects; put back if the server says otherwise.
    show(form, wanted);
    fetch(form.action, {
      method: 'POST',
      headers: { accept: 'application/json' },
      body: new URLSearchParams({ on: wanted ? '1' : '0' }),
      credentials: 'same-origin',
    })
      .then((res) => {
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        return res.json();
      })
      .then((answer) => {
        show(form, answer.on === true);
        // Past the selection's maximum: the answer says so, and nothing changed.
        if (answer.refused) {
          showRefusal(answer.message);
        } else {
          showRefusal('');
          if (mine === requests) showCount(Number(answer.favorites_count) || 0);
        }
        button.removeAttribute('aria-busy');
      })
      .catch(() => {
        // A locked, expired or unreachable link: the plain post shows the page that explains it.
        show(form, !wanted);
        button.removeAttribute('aria-busy');
        form.submit();
      });
  });
}

/** The comment as the server would render it: its text above the form, the summary's words. */
function showComment(form, text) {
  const box = form.closest('.tile__comment');
  const details = form.closest('details');
  if (!box || !details) return;
  let shown = box.querySelector('[data-comment-text]');
  if (text === '') {
    if (shown) shown.remove();
  } else {
    if (!shown) {
      shown = document.createElement('p');
      shown.className = 'comment__text';
      shown.setAttribute('data-comment-text', '');
      box.insertBefore(shown, details);
    }
    shown.textContent = text;
  }
  const summary = details.querySelector('summary');
  const words = summary && summary.firstChild;
  if (words && words.nodeType === Node.TEXT_NODE) words.textContent = text === '' ? 'Add a comment' : 'Edit comment';
  details.open = false;
  if (summary) summary.focus();
}

if (grid && typeof window.fetch === 'function') {
  grid.addEventListener('submit', (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute('data-comment-form')) return;
    event.preventDefault();
    const button = form.querySelector('button');
    const field = form.querySelector('textarea');
    if (!button || !field || button.getAttribute('aria-busy') === 'true') return;
    button.setAttribute('aria-busy', 'true');
    fetch(form.action, {
      method: 'POST',
      headers: { accept: 'application/json' },
      body: new URLSearchParams({ comment: field.value }),
      credentials: 'same-origin',
    })
      .then((res) => {
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        return res.json();
      })
      .then((answer) => {
        button.removeAttribute('aria-busy');
        field.value = answer.comment;
        showComment(form, answer.comment);
      })
      .catch(() => {
        // The plain post shows what went wrong (a locked or expired link, a comment too long).
        button.removeAttribute('aria-busy');
        form.submit();
      });
  });
}
