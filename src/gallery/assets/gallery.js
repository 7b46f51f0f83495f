// The photo viewer: PhotoSwipe over the grid's links (keyboard, swipe, zoom). Without this
// script, or if it fails, every link still opens the large photo. Loaded from this site only.
const root = document.getElementById('gallery');
const grid = document.getElementById('photo-grid');

if (root && grid) {
  const lightboxUrl = root.dataset.lightbox;
  const pswpUrl = root.dataset.pswp;
  import(lightboxUrl)
    .then(({ default: PhotoSwipeLightbox }) => {
      const lightbox = new PhotoSwipeLightbox({
        gallery: '#photo-grid',
        children: 'a.tile__link',
        pswpModule: () => import(pswpUrl),
        // Opaque: at 0.94 the page showed through around the photo, plainly on a phone.
        bgOpacity: 1,
        showHideAnimationType: 'fade',
      });
      // The page behind turns black and still while the viewer is open (gallery.css).
      lightbox.on('beforeOpen', () => document.documentElement.classList.add('viewer-open'));
      lightbox.on('destroy', () => document.documentElement.classList.remove('viewer-open'));
      lightbox.on('uiRegister', () => {
        lightbox.pswp.ui.registerElement({
          name: 'custom-caption',
          order: 9,
          isButton: false,
          appendTo: 'root',
          onInit: (el, pswp) => {
            pswp.on('change', () => {
              const link = pswp.currSlide.data.element;
              el.textContent = (link && link.dataset.caption) || '';
            });
          },
        });
        if (root.dataset.downloads !== 'on') return;
        lightbox.pswp.ui.registerElement({
          name: 'download',
          order: 8,
          isButton: true,
          tagName: 'a',
          title: 'Download the original',
          html: '<svg width="32" height="32" viewBox="0 0 32 32" aria-hidden="true" class="pswp__icn"><path d="M20.5 14.3 17.1 18V10h-2.2v7.9l-3.4-3.6L10 16l6 6.1 6-6.1ZM23 23H9v2h14Z" /></svg>',
          onInit: (el, pswp) => {
            el.setAttribute('download', '');
            el.setAttribute('rel', 'noopener');
            pswp.on('change', () => {
              const link = pswp.currSlide.data.element;
              if (link) el.href = link.dataset.download;
            });
          },
        });
      });
      lightbox.init();
    })
    .catch(() => {
      // The plain links keep working.
    });
}
