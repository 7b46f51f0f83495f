/* global window */
/**
 * The Lightbox gallery block in the editor: a gallery id field, and a preview rendered by the
 * server exactly as visitors see it (editors also see notices). No build step: WordPress globals.
 */
(function (blocks, element, blockEditor, components, i18n, ServerSideRender) {
  var el = element.createElement;
  var __ = i18n.__;

  blocks.registerBlockType('lightbox/gallery', {
    edit: function (props) {
      var id = props.attributes.galleryId;
      var field = el(components.TextControl, {
        label: __('Gallery id', 'lightbox'),
        help: __('The lst_… id of a gallery with a published property page.', 'lightbox'),
        value: id,
        onChange: function (value) {
          props.setAttributes({ galleryId: value.trim() });
        },
      });
      return el(
        'div',
        blockEditor.useBlockProps(),
        el(blockEditor.InspectorControls, null, el(components.PanelBody, { title: __('Gallery', 'lightbox') }, field)),
        id
          ? el(ServerSideRender, { block: 'lightbox/gallery', attributes: props.attributes })
          : el(components.Placeholder, { icon: 'format-gallery', label: __('Lightbox gallery', 'lightbox') }, field),
      );
    },
    save: function () {
      return null;
    },
  });
})(
  window.wp.blocks,
  window.wp.element,
  window.wp.blockEditor,
  window.wp.components,
  window.wp.i18n,
  window.wp.serverSideRender,
);
