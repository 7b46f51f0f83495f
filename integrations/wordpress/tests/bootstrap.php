<?php
/**
 * Unit tests load the plugin's classes without WordPress: the few WordPress functions they call
 * are defined here, small and faithful to WordPress's contracts (wp_remote_request answers the
 * `pre_http_request` filter first, as WordPress does, which is how the tests fake Lightbox). The
 * end-to-end test (test/e2e.test.mjs) runs the plugin in a real WordPress.
 *
 * @package Lightbox
 */

define( 'ABSPATH', __DIR__ . '/' );
define( 'MINUTE_IN_SECONDS', 60 );
define( 'DAY_IN_SECONDS', 86400 );
define( 'LIGHTBOX_VERSION', '1.0.0-test' );

/**
 * WordPress's error object, as much as the plugin uses.
 */
class WP_Error {

	/**
	 * Message.
	 *
	 * @var string
	 */
	private string $message;

	/**
	 * An error.
	 *
	 * @param string $code    Code.
	 * @param string $message Message.
	 */
	public function __construct( string $code = '', string $message = '' ) {
		$this->message = $message;
	}

	/**
	 * The message.
	 */
	public function get_error_message(): string {
		return $this->message;
	}
}

/**
 * What the stubs keep between calls; reset by each test.
 */
final class WP_Stub_State {

	/**
	 * Filters: name => list of callables.
	 *
	 * @var array<string, list<callable>>
	 */
	public static array $filters = array();

	/**
	 * Options.
	 *
	 * @var array<string, mixed>
	 */
	public static array $options = array();

	/**
	 * Transients.
	 *
	 * @var array<string, mixed>
	 */
	public static array $transients = array();

	/**
	 * Capabilities the current user has.
	 *
	 * @var list<string>
	 */
	public static array $caps = array();

	/**
	 * Enqueued style handles.
	 *
	 * @var list<string>
	 */
	public static array $styles = array();

	/**
	 * Back to an empty site.
	 */
	public static function reset(): void {
		self::$filters    = array();
		self::$options    = array();
		self::$transients = array();
		self::$caps       = array();
		self::$styles     = array();
	}
}

function add_filter( string $name, callable $callback ): void {
	WP_Stub_State::$filters[ $name ][] = $callback;
}

function apply_filters( string $name, $value, ...$args ) {
	foreach ( WP_Stub_State::$filters[ $name ] ?? array() as $callback ) {
		$value = $callback( $value, ...$args );
	}
	return $value;
}

function get_option( string $name, $fallback = false ) {
	return WP_Stub_State::$options[ $name ] ?? $fallback;
}

function get_transient( string $name ) {
	return WP_Stub_State::$transients[ $name ] ?? false;
}

function set_transient( string $name, $value, int $expiration = 0 ): bool {
	WP_Stub_State::$transients[ $name ] = $value;
	return true;
}

function delete_transient( string $name ): bool {
	unset( WP_Stub_State::$transients[ $name ] );
	return true;
}

function wp_remote_request( string $url, array $args = array() ) {
	$pre = apply_filters( 'pre_http_request', false, $args, $url );
	return false !== $pre ? $pre : new WP_Error( 'http_request_failed', 'No transport in unit tests.' );
}

function is_wp_error( $thing ): bool {
	return $thing instanceof WP_Error;
}

function wp_remote_retrieve_response_code( $response ) {
	return $response['response']['code'] ?? '';
}

function wp_remote_retrieve_body( $response ): string {
	return $response['body'] ?? '';
}

function wp_remote_retrieve_header( $response, string $header ): string {
	foreach ( $response['headers'] ?? array() as $name => $value ) {
		if ( strtolower( $name ) === strtolower( $header ) ) {
			return $value;
		}
	}
	return '';
}

function untrailingslashit( string $value ): string {
	return rtrim( $value, '/\\' );
}

function home_url( string $path = '' ): string {
	return 'https://blog.example' . $path;
}

function __( string $text, string $domain = 'default' ): string {
	return $text;
}

function esc_html__( string $text, string $domain = 'default' ): string {
	return esc_html( $text );
}

function _n( string $single, string $plural, int $number, string $domain = 'default' ): string {
	return 1 === $number ? $single : $plural;
}

function esc_html( string $text ): string {
	return htmlspecialchars( $text, ENT_QUOTES, 'UTF-8' ); // phpcs:ignore Generic.PHP.ForbiddenFunctions
}

function esc_attr( string $text ): string {
	return esc_html( $text );
}

function esc_url( string $url ): string {
	if ( 1 !== preg_match( '#^https?://#i', $url ) ) {
		return '';
	}
	return str_replace( array( '&', "'", '"', '<', '>' ), array( '&#038;', '&#039;', '&quot;', '', '' ), $url );
}

function number_format_i18n( float $number, int $decimals = 0 ): string {
	return number_format( $number, $decimals );
}

function sanitize_key( string $key ): string {
	return preg_replace( '/[^a-z0-9_\-]/', '', strtolower( $key ) );
}

function absint( $value ): int {
	return abs( (int) $value );
}

function shortcode_atts( array $pairs, array $atts, string $shortcode = '' ): array {
	$out = array();
	foreach ( $pairs as $name => $default ) {
		$out[ $name ] = array_key_exists( $name, $atts ) ? $atts[ $name ] : $default;
	}
	return $out;
}

function current_user_can( string $capability ): bool {
	return in_array( $capability, WP_Stub_State::$caps, true );
}

function wp_enqueue_style( string $handle ): void {
	WP_Stub_State::$styles[] = $handle;
}

require_once dirname( __DIR__ ) . '/lightbox/includes/class-lightbox-client.php';
require_once dirname( __DIR__ ) . '/lightbox/includes/class-lightbox-renderer.php';
require_once __DIR__ . '/FakeLightbox.php';
