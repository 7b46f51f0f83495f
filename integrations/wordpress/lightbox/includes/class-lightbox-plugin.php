<?php
/**
 * Wires the plugin into WordPress: settings, shortcodes, the block, the oEmbed provider.
 *
 * @package Lightbox
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * The plugin.
 */
final class Lightbox_Plugin {

	/**
	 * Registers the hooks.
	 */
	public static function boot(): void {
		Lightbox_Settings::register();
		add_action( 'init', array( self::class, 'init' ) );
		add_filter( 'http_request_host_is_external', array( self::class, 'allow_lightbox_host' ), 10, 2 );
		add_filter( 'http_allowed_safe_ports', array( self::class, 'allow_lightbox_port' ), 10, 2 );
		add_filter( 'plugin_action_links_' . plugin_basename( LIGHTBOX_FILE ), array( self::class, 'action_links' ) );
	}

	/**
	 * Text domain, style, shortcodes, block, oEmbed provider.
	 */
	public static function init(): void {
		load_plugin_textdomain( 'lightbox', false, dirname( plugin_basename( LIGHTBOX_FILE ) ) . '/languages' );
		wp_register_style( 'lightbox', plugins_url( 'assets/lightbox.css', LIGHTBOX_FILE ), array(), LIGHTBOX_VERSION );
		add_shortcode( 'lightbox_gallery', array( self::class, 'gallery_shortcode' ) );
		add_shortcode( 'lightbox_galleries', array( self::class, 'galleries_shortcode' ) );
		register_block_type(
			LIGHTBOX_DIR . '/blocks/gallery',
			array( 'render_callback' => array( self::class, 'gallery_block' ) )
		);
		$base = untrailingslashit( (string) get_option( 'lightbox_base_url', '' ) );
		if ( '' !== $base ) {
			// Property page URLs (docs/api.md §25) unfold through Lightbox's own oEmbed endpoint.
			wp_oembed_add_provider( $base . '/p/*', $base . '/oembed', false );
		}
	}

	/**
	 * The renderer for the saved settings.
	 */
	public static function renderer(): Lightbox_Renderer {
		return new Lightbox_Renderer( Lightbox_Client::from_options() );
	}

	/**
	 * [lightbox_gallery].
	 *
	 * @param array<string, mixed>|string $atts Attributes.
	 */
	public static function gallery_shortcode( $atts ): string {
		return self::renderer()->gallery( is_array( $atts ) ? $atts : array() );
	}

	/**
	 * [lightbox_galleries].
	 *
	 * @param array<string, mixed>|string $atts Attributes.
	 */
	public static function galleries_shortcode( $atts ): string {
		return self::renderer()->galleries( is_array( $atts ) ? $atts : array() );
	}

	/**
	 * The lightbox/gallery block, rendered on the server like the shortcode.
	 *
	 * @param array<string, mixed> $attributes Block attributes.
	 */
	public static function gallery_block( $attributes ): string {
		$id = is_array( $attributes ) && isset( $attributes['galleryId'] ) ? (string) $attributes['galleryId'] : '';
		return self::renderer()->gallery( array( 'id' => $id ) );
	}

	/**
	 * The configured Lightbox host counts as external for WordPress's safe requests (oEmbed uses
	 * them), so a studio's Lightbox on its own network embeds too.
	 *
	 * @param bool   $external Whether WordPress thinks the host is external.
	 * @param string $host     Host.
	 */
	public static function allow_lightbox_host( $external, $host ): bool {
		$base = wp_parse_url( (string) get_option( 'lightbox_base_url', '' ) );
		return (bool) $external || ( is_array( $base ) && isset( $base['host'] ) && strtolower( (string) $host ) === strtolower( $base['host'] ) );
	}

	/**
	 * The configured Lightbox port is allowed for safe requests to its host.
	 *
	 * @param int[]  $ports Allowed ports.
	 * @param string $host  Host of the request.
	 * @return int[]
	 */
	public static function allow_lightbox_port( $ports, $host = '' ): array {
		$ports = is_array( $ports ) ? $ports : array();
		$base  = wp_parse_url( (string) get_option( 'lightbox_base_url', '' ) );
		if ( is_array( $base ) && isset( $base['host'], $base['port'] ) && strtolower( (string) $host ) === strtolower( $base['host'] ) ) {
			$ports[] = (int) $base['port'];
		}
		return $ports;
	}

	/**
	 * A Settings link on the Plugins screen.
	 *
	 * @param string[] $links Links.
	 * @return string[]
	 */
	public static function action_links( $links ): array {
		$links   = is_array( $links ) ? $links : array();
		$links[] = '<a href="' . esc_url( admin_url( 'options-general.php?page=' . Lightbox_Settings::PAGE ) ) . '">' . esc_html__( 'Settings', 'lightbox' ) . '</a>';
		return $links;
	}
}
