<?php
/**
 * Dependencies of editor.js (written by hand: there is no build step).
 *
 * @package Lightbox
 */

return array(
	'dependencies' => array( 'wp-block-editor', 'wp-blocks', 'wp-components', 'wp-element', 'wp-i18n', 'wp-server-side-render' ),
	'version'      => '1.0.0',
);
