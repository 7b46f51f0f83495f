<?php
/**
 * Removes everything the plugin stored: its options and its cached API answers.
 *
 * @package Lightbox
 */

if ( ! defined( 'WP_UNINSTALL_PLUGIN' ) ) {
	exit;
}

delete_option( 'lightbox_base_url' );
delete_option( 'lightbox_api_key' );

global $wpdb;
// Cached API answers and connection-test results are transients named lightbox_*.
$wpdb->query(
	$wpdb->prepare(
		"DELETE FROM {$wpdb->options} WHERE option_name LIKE %s OR option_name LIKE %s",
		$wpdb->esc_like( '_transient_lightbox_' ) . '%',
		$wpdb->esc_like( '_transient_timeout_lightbox_' ) . '%'
	)
);
