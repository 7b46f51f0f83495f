<?php
/**
 * Plugin Name:       Lightbox
 * Plugin URI:        https://github.com/lightbox/lightbox/tree/main/integrations/wordpress
 * Description:       Shows your Lightbox galleries' published property pages in posts and pages: a block, the [lightbox_gallery] and [lightbox_galleries] shortcodes, and embeds of pasted property page links.
 * Version:           1.0.0
 * Requires at least: 6.1
 * Requires PHP:      8.2
 * Author:            Lightbox
 * License:           Apache-2.0
 * License URI:       https://www.apache.org/licenses/LICENSE-2.0
 * Text Domain:       lightbox
 * Domain Path:       /languages
 *
 * @package Lightbox
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

define( 'LIGHTBOX_VERSION', '1.0.0' );
define( 'LIGHTBOX_FILE', __FILE__ );
define( 'LIGHTBOX_DIR', __DIR__ );

require_once __DIR__ . '/includes/class-lightbox-client.php';
require_once __DIR__ . '/includes/class-lightbox-renderer.php';
require_once __DIR__ . '/includes/class-lightbox-settings.php';
require_once __DIR__ . '/includes/class-lightbox-plugin.php';

Lightbox_Plugin::boot();
