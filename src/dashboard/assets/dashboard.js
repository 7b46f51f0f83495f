// The dashboard's only script, and every page works without it: it adds copy buttons (a new API
// key, a gallery's links), brings the page's own link of a scrolled navigation into view,
// and on a gallery's page uploads by drag and drop with progress
// (resumable for large files when tus is on the page) and reordering by drag (mouse, finger) and
// by Earlier / Later buttons. Served from
// /dashboard/assets/ (the Content-Security-Policy allows no inline script).
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
          status.textContent = ok ? 'Copied to the clipboard.' : 'Could not copy: select it and copy it yourself.';
        }
        if (ok) button.textContent = 'Copied';
      });
    });
    // Clicking into the key selects all of it, ready for a manual copy.
    input.addEventListener('focus', () => input.select());
  }
}

/**
 * The navigation scrolls sideways where it does not fit (a phone): the page's own link is
 * brought into view, so the row shows where one is, and so is each link keyboard focus reaches
 * (the browser's own scroll leaves a link that is partly in view as it is).
 */
function setUpNavScroll() {
  const nav = document.querySelector('.main-nav');
  if (!nav) return;
  const reveal = (link, centre) => {
    if (nav.scrollWidth <= nav.clientWidth) return;
    const edge = 16;
    const left = link.offsetLeft;
    const right = left + link.offsetWidth;
    if (centre) nav.scrollLeft = Math.max(0, left - (nav.clientWidth - link.offsetWidth) / 2);
    else if (left - edge < nav.scrollLeft) nav.scrollLeft = Math.max(0, left - edge);
    else if (right + edge > nav.scrollLeft + nav.clientWidth) nav.scrollLeft = right + edge - nav.clientWidth;
  };
  const current = nav.querySelector('a[aria-current="page"]');
  if (current) reveal(current, true);
  nav.addEventListener('focusin', (event) => {
    if (event.target instanceof HTMLElement) reveal(event.target, false);
  });
}

// ---- a gallery's uploads -------------------------------------------------------------------

/** Files at least this large go through tus (resumable) when the page has it. */
const RESUMABLE_FROM = 20 * 1024 * 1024;

const UPLOAD_MESSAGES = {
  'upload-refused': 'not a photo (JPEG, PNG, WebP, GIF, TIFF, HEIC, AVIF), a video (MP4, MOV, WebM) or a PDF',
  'upload-too-large': 'over the size limit',
  'upload-empty': 'empty',
};

function progressRow(container, file) {
  const row = document.createElement('div');
  row.className = 'upload-row';
  const label = document.createElement('span');
  label.textContent = `${file.name}: waiting`;
  const bar = document.createElement('progress');
  bar.max = 100;
  bar.value = 0;
  bar.setAttribute('aria-label', `Upload of ${file.name}`);
  row.append(label, bar);
  container.append(row);
  return {
    progress(loaded, total) {
      const percent = total > 0 ? Math.floor((loaded / total) * 100) : 0;
      bar.value = percent;
      label.textContent = `${file.name}: ${percent}%`;
    },
    done(text) {
      bar.value = 100;
      label.textContent = `${file.name}: ${text}`;
    },
    failed(text) {
      label.textContent = `${file.name}: not uploaded, ${text}`;
      row.classList.add('error-text');
    },
  };
}

/** One file as the plain form would send it, with progress. */
function sendMultipart(form, token, file, row) {
  return new Promise((resolve) => {
    const data = new FormData();
    data.append('files', file, file.name);
    const xhr = new XMLHttpRequest();
    xhr.open('POST', form.action);
    xhr.setRequestHeader('x-csrf-token', token);
    xhr.setRequestHeader('accept', 'application/json');
    xhr.upload.addEventListener('progress', (e) => row.progress(e.loaded, e.total));
    xhr.addEventListener('load', () => {
      if (xhr.status === 201) {
        row.done('uploaded');
        resolve(true);
        return;
      }
      let notice;
      try {
        notice = JSON.parse(xhr.responseText).error.notice;
      } catch {
        notice = undefined;
      }
      row.failed(
        UPLOAD_MESSAGES[notice] ?? (xhr.status === 403 ? 'the page is out of date: reload it' : `error ${xhr.status}`),
      );
      resolve(false);
    });
    xhr.addEventListener('error', () => {
      row.failed('the connection failed');
      resolve(false);
    });
    xhr.send(data);
  });
}

/** A large file through tus (tus-js-client), resuming after a dropped connection. */
function sendResumable(form, token, file, row) {
  return new Promise((resolve) => {
    const upload = new window.tus.Upload(file, {
      endpoint: `${form.getAttribute('data-upload')}/uploads`,
      chunkSize: 8 * 1024 * 1024,
      retryDelays: [0, 1000, 3000, 5000, 10000, 20000],
      metadata: { filename: file.name },
      headers: { 'x-csrf-token': token },
      storeFingerprintForResuming: true,
      removeFingerprintOnSuccess: true,
      onProgress: (loaded, total) => row.progress(loaded, total),
      onSuccess: () => {
        row.done('uploaded');
        resolve(true);
      },
      onError: (err) => {
        const status = err.originalResponse ? err.originalResponse.getStatus() : 0;
        row.failed(
          status === 415
            ? UPLOAD_MESSAGES['upload-refused']
            : status === 413
              ? UPLOAD_MESSAGES['upload-too-large']
              : 'the upload stopped: choose the file again to resume',
        );
        resolve(false);
      },
    });
    upload.findPreviousUploads().then((previous) => {
      if (previous.length > 0) upload.resumeFromPreviousUpload(previous[0]);
      upload.start();
    });
  });
}

function setUpUploads() {
  const form = document.querySelector('form[data-upload]');
  if (!form) return;
  const input = form.querySelector('input[type="file"]');
  const zone = form.querySelector('.dropzone');
  const status = form.querySelector('.upload-progress');
  const token = form.querySelector('input[name="_csrf"]').value;
  let busy = false;
  const send = async (files) => {
    if (busy || files.length === 0) return;
    busy = true;
    status.replaceChildren();
    let ok = 0;
    for (const file of files) {
      const row = progressRow(status, file);
      const resumable = window.tus && window.tus.isSupported && file.size >= RESUMABLE_FROM;
      if (await (resumable ? sendResumable : sendMultipart)(form, token, file, row)) ok += 1;
    }
    busy = false;
    if (ok === files.length) {
      window.location.assign(`${window.location.pathname}?notice=uploaded#media`);
    } else if (ok > 0) {
      const more = document.createElement('p');
      const link = document.createElement('a');
      link.href = `${window.location.pathname}#media`;
      link.textContent = 'Show the uploaded files';
      more.append(`${ok} of ${files.length} uploaded. `, link);
      status.append(more);
    }
  };
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void send([...input.files]);
  });
  for (const name of ['dragenter', 'dragover']) {
    zone.addEventListener(name, (e) => {
      if (!e.dataTransfer || ![...e.dataTransfer.types].includes('Files')) return;
      e.preventDefault();
      zone.classList.add('dragging');
    });
  }
  zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
  zone.addEventListener('drop', (e) => {
    if (!e.dataTransfer || e.dataTransfer.files.length === 0) return;
    e.preventDefault();
    zone.classList.remove('dragging');
    void send([...e.dataTransfer.files]);
  });
}

// ---- a gallery's order: drag (mouse, finger, pen) and Earlier / Later (keyboard) -------------
//
// A mouse drags an item with HTML5 drag and drop; phones fire none of that, so a finger or a pen
// drags the item by its handle with Pointer Events (the handle has touch-action: none, so the rest
// of the page still scrolls under a finger). The Earlier and Later buttons do the same from the keyboard. Every
// change saves the whole order in one request (POST .../order, as media.reorder takes it), and the
// position fields follow, so the plain forms stay right.

function setUpReorder() {
  const grid = document.querySelector('ol.media-grid[data-order-action]');
  if (!grid) return;
  const status = document.querySelector('.order-status');
  let dragged = null;
  // The drag in progress by a finger or a pen: { id, item, handle, before } or null.
  let pointer = null;
  const items = () => [...grid.querySelectorAll('li[data-media-id]')];
  const orderOf = () => items().map((li) => li.getAttribute('data-media-id'));

  /** Moves `item` to `target`'s place: after it when moving down, before it when moving up. */
  const moveOnto = (item, target) => {
    const all = items();
    const after = all.indexOf(item) < all.indexOf(target);
    target.insertAdjacentElement(after ? 'afterend' : 'beforebegin', item);
  };

  const refreshButtons = () => {
    const all = items();
    all.forEach((li, i) => {
      const earlier = li.querySelector('button[data-move="earlier"]');
      const later = li.querySelector('button[data-move="later"]');
      if (earlier) earlier.disabled = i === 0;
      if (later) later.disabled = i === all.length - 1;
    });
  };

  // The ways to reorder that need this script are named once it runs.
  const hint = document.querySelector('.order-hint');
  if (hint) hint.hidden = items().length < 2;

  // Reorder shows each item's handle and arrows (a tile is small: they are not shown otherwise).
  const toggle = document.querySelector('[data-reorder-toggle]');
  if (toggle) {
    toggle.hidden = items().length < 2;
    toggle.addEventListener('click', () => {
      const on = toggle.getAttribute('aria-pressed') !== 'true';
      toggle.setAttribute('aria-pressed', String(on));
      grid.classList.toggle('reordering', on);
      for (const tools of grid.querySelectorAll('.order-tools')) tools.hidden = !on;
    });
  }

  for (const item of items()) {
    item.draggable = true;
    // The item moves, not its picture.
    for (const img of item.querySelectorAll('img')) img.draggable = false;

    // A mouse: HTML5 drag and drop.
    item.addEventListener('dragstart', (e) => {
      if (pointer) {
        e.preventDefault();
        return;
      }
      dragged = item;
      item.classList.add('dragging');
      e.dataTransfer.effectAllowed = 'move';
      e.dataTransfer.setData('text/plain', item.getAttribute('data-media-id'));
    });
    item.addEventListener('dragend', () => {
      item.classList.remove('dragging');
      for (const other of items()) other.classList.remove('drag-over');
    });
    item.addEventListener('dragover', (e) => {
      if (!dragged || dragged === item) return;
      e.preventDefault();
      item.classList.add('drag-over');
    });
    item.addEventListener('dragleave', () => item.classList.remove('drag-over'));
    item.addEventListener('drop', (e) => {
      if (!dragged || dragged === item) return;
      e.preventDefault();
      item.classList.remove('drag-over');
      moveOnto(dragged, item);
      dragged = null;
      void saveOrder();
    });

    // The keyboard (and anyone): one place earlier or later, the focus kept on the button.
    for (const button of item.querySelectorAll('button[data-move]')) {
      button.addEventListener('click', () => {
        const all = items();
        const i = all.indexOf(item);
        const earlier = button.getAttribute('data-move') === 'earlier';
        const neighbour = all[earlier ? i - 1 : i + 1];
        if (!neighbour) return;
        moveOnto(item, neighbour);
        refreshButtons();
        (button.disabled ? item.querySelector(`button[data-move="${earlier ? 'later' : 'earlier'}"]`) : button).focus();
        void saveOrder();
      });
    }

    // A finger or a pen: Pointer Events on the handle.
    const handle = item.querySelector('.drag-handle');
    if (handle) handle.addEventListener('pointerdown', (e) => startPointer(e, item, handle));
  }
  refreshButtons();

  function startPointer(e, item, handle) {
    if (e.pointerType === 'mouse' || pointer || !e.isPrimary) return;
    e.preventDefault();
    pointer = { id: e.pointerId, item, handle, before: orderOf().join(',') };
    item.draggable = false;
    item.classList.add('dragging');
    try {
      handle.setPointerCapture(e.pointerId);
    } catch {
      // Capture is a convenience: the document's listeners below follow the pointer anyway.
    }
    document.addEventListener('pointermove', onPointerMove);
    document.addEventListener('pointerup', onPointerEnd);
    document.addEventListener('pointercancel', onPointerEnd);
  }

  function onPointerMove(e) {
    if (!pointer || e.pointerId !== pointer.id) return;
    e.preventDefault();
    // Near the top or bottom of the screen the page scrolls, so an item can go far.
    const edge = 48;
    if (e.clientY < edge) window.scrollBy(0, -16);
    else if (e.clientY > window.innerHeight - edge) window.scrollBy(0, 16);
    const under = document.elementFromPoint(e.clientX, e.clientY);
    const target = under ? under.closest('li[data-media-id]') : null;
    for (const other of items()) other.classList.toggle('drag-over', other === target && other !== pointer.item);
    if (target && target !== pointer.item && grid.contains(target)) {
      moveOnto(pointer.item, target);
      target.classList.remove('drag-over');
    }
  }

  function onPointerEnd(e) {
    if (!pointer || e.pointerId !== pointer.id) return;
    const { item, handle, before } = pointer;
    pointer = null;
    document.removeEventListener('pointermove', onPointerMove);
    document.removeEventListener('pointerup', onPointerEnd);
    document.removeEventListener('pointercancel', onPointerEnd);
    try {
      handle.releasePointerCapture(e.pointerId);
    } catch {
      // Already released.
    }
    item.draggable = true;
    item.classList.remove('dragging');
    for (const other of items()) other.classList.remove('drag-over');
    refreshButtons();
    if (orderOf().join(',') !== before) void saveOrder();
  }

  // One save at a time, in order: a later order never lands before an earlier one.
  let saving = Promise.resolve();
  function saveOrder() {
    refreshButtons();
    const ids = orderOf();
    items().forEach((li, i) => {
      const position = li.querySelector('.position-input');
      if (position) position.value = String(i + 1);
    });
    status.textContent = 'Saving the order…';
    const body = new URLSearchParams({ _csrf: grid.getAttribute('data-csrf'), media_ids: ids.join(',') });
    saving = saving.then(async () => {
      try {
        const res = await fetch(grid.getAttribute('data-order-action'), {
          method: 'POST',
          headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
          body,
        });
        status.textContent = res.ok ? 'Order saved.' : 'The order was not saved: reload the page and try again.';
      } catch {
        status.textContent = 'The order was not saved: reload the page and try again.';
      }
    });
    return saving;
  }
}

// ---- a gallery's ticked items: how many, and All ------------------------------------------
//
// Without this script the boxes and the Hide, Show and Delete buttons are a plain form; with it,
// the bar says how many are ticked, All ticks every one, and a press with none ticked says so
// in place instead of a round trip.

function setUpSelection() {
  const form = document.querySelector('form.bulk-form');
  if (!form) return;
  const boxes = () => [...form.querySelectorAll('.tile-pick input[type="checkbox"]')];
  const all = form.querySelector('[data-select-all]');
  const allLabel = form.querySelector('.select-all');
  const said = form.querySelector('.bulk-count');
  const refresh = () => {
    const ticked = boxes().filter((b) => b.checked).length;
    said.textContent = ticked === 0 ? '' : `${ticked} ticked`;
    if (all) {
      all.checked = ticked > 0 && ticked === boxes().length;
      all.indeterminate = ticked > 0 && ticked < boxes().length;
    }
  };
  if (allLabel) allLabel.hidden = false;
  if (all) {
    all.addEventListener('change', () => {
      for (const box of boxes()) box.checked = all.checked;
      refresh();
    });
  }
  form.addEventListener('change', (e) => {
    if (e.target !== all) refresh();
  });
  form.addEventListener('submit', (e) => {
    if (boxes().some((b) => b.checked)) return;
    e.preventDefault();
    said.textContent = 'Tick one or more items first.';
  });
  refresh();
}

function setUp() {
  setUpNavScroll();
  setUpCopyButtons();
  setUpUploads();
  setUpSelection();
  setUpReorder();
}

if (document.readyState === 'loading') {
  document.addEventListener('DOMContentLoaded', setUp);
} else {
  setUp();
}
