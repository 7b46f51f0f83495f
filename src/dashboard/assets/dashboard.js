// The dashboard's only script, and every page works without it: it adds the copy button to a
// new API key. Served from /dashboard/assets/ (the Content-Security-Policy allows no inline script).
'use strict';

function copyText(input, done) {
  const fallback = () => {
    input.focus();
    input.select();
    let ok;
    try {
      ok = document.execCommand('copy');
    } catch {
      ok = false;
    }
    done(ok);
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(input.value).then(() => done(true), fallback);
  } else {
    fallback();
  }
}

function setUpCopyButtons() {
  for (const button of document.querySelectorAll('button[data-copy-target]')) {
    const input = document.getElementById(button.getAttribute('data-copy-target') ?? '');
    const status = document.getElementById(button.getAttribute('data-copy-status') ?? '');
    if (!(input instanceof HTMLInputElement || input instanceof HTMLTextAreaElement)) continue;
    button.hidden = false;
    button.addEventListener('click', () => {
      copyText(input, (ok) => {
        if (status) {
          status.textContent = ok ? 'Copied to the clipboard.' : 'Could not copy: select the key and copy it yourself.';
        }
        if (ok) button.textContent = 'Copied';
      });
    });
    // Clicking into the key selects all of it, ready for a manual copy.
    input.addEventListener('focus', () => input.select());
  }
}

if (document.readyState === 'loading') {
  document.addEventListener('DOMContentLoaded', setUpCopyButtons);
} else {
  setUpCopyButtons();
}
