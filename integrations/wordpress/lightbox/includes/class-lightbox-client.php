<?php
/**
 * The Lightbox API client: GETs through wp_remote_request with the studio's key, answers cached
 * in transients and revalidated with If-None-Match (docs/api.md §17).
 *
 * @package Lightbox
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * Reads a Lightbox account over its REST API, server-side only.
 */
final class Lightbox_Client {

	/** Prefix of the transients holding cached answers (uninstall.php removes lightbox_*). */
	public const CACHE_PREFIX = 'lightbox_c_';

	/** How long a cached answer is kept for revalidation. */
	public const CACHE_KEEP = DAY_IN_SECONDS;

	/**
	 * Base URL, without a trailing slash.
	 *
	 * @var string
	 */
	private string $base_url;

	/**
	 * API key (never leaves the server except in the Authorization header to $base_url).
	 *
	 * @var string
	 */
	private string $api_key;

	/**
	 * Makes a client.
	 *
	 * @param string $base_url Lightbox base URL.
	 * @param string $api_key  API key.
	 */
	public function __construct( string $base_url, string $api_key ) {
		$this->base_url = untrailingslashit( $base_url );
		$this->api_key  = $api_key;
	}

	/**
	 * The client for the site's saved settings.
	 */
	public static function from_options(): self {
		return new self( (string) get_option( 'lightbox_base_url', '' ), self::saved_key() );
	}

	/**
	 * The saved API key, or ''. It is stored as `array( 'secret' => key )`: WordPress's own
	 * all-options screen (wp-admin/options.php) prints every plain option's value, and shows an
	 * array only as "SERIALIZED DATA", so the key appears in no page at all.
	 */
	public static function saved_key(): string {
		$saved = get_option( 'lightbox_api_key', array() );
		return is_array( $saved ) && isset( $saved['secret'] ) && is_string( $saved['secret'] ) ? $saved['secret'] : '';
	}

	/**
	 * Whether a base URL and a key are saved.
	 */
	public function is_configured(): bool {
		return '' !== $this->base_url && '' !== $this->api_key;
	}

	/**
	 * The base URL (no trailing slash).
	 */
	public function base_url(): string {
		return $this->base_url;
	}

	/**
	 * GETs a path under the base URL.
	 *
	 * A cached answer younger than the `lightbox_cache_fresh_seconds` filter (60 s by default) is
	 * answered without a request; an older one is revalidated with If-None-Match, and a 304 keeps
	 * it. When Lightbox cannot be reached or fails (5xx), the cached answer is used if there is one.
	 *
	 * @param string $path     Path and query, starting with /v1/.
	 * @param bool   $use_cache Whether to cache (false for the connection test).
	 * @return array{status: int, body: mixed, error: string|null, cached: bool}
	 */
	public function get( string $path, bool $use_cache = true ): array {
		if ( ! $this->is_configured() ) {
			return self::result( 0, null, __( 'Lightbox is not configured: add the base URL and API key in Settings › Lightbox.', 'lightbox' ) );
		}
		$cache_key = $this->cache_key( $path );
		$cached    = $use_cache ? get_transient( $cache_key ) : false;
		$cached    = is_array( $cached ) && isset( $cached['etag'], $cached['body'], $cached['checked'] ) ? $cached : null;
		$fresh_for = (int) apply_filters( 'lightbox_cache_fresh_seconds', 60, $path );
		if ( null !== $cached && time() - (int) $cached['checked'] < $fresh_for ) {
			return self::result( 200, $cached['body'], null, true );
		}

		$headers = array(
			'Authorization' => 'Bearer ' . $this->api_key,
			'Accept'        => 'application/json',
		);
		if ( null !== $cached && '' !== $cached['etag'] ) {
			$headers['If-None-Match'] = $cached['etag'];
		}
		$response = wp_remote_request(
			$this->base_url . $path,
			array(
				'method'      => 'GET',
				'headers'     => $headers,
				'timeout'     => 10,
				'redirection' => 0,
				'user-agent'  => 'Lightbox-WordPress/' . LIGHTBOX_VERSION . '; ' . home_url( '/' ),
			)
		);

		if ( is_wp_error( $response ) ) {
			if ( null !== $cached ) {
				return self::result( 200, $cached['body'], null, true );
			}
			/* translators: %s: the transport's error message. */
			return self::result( 0, null, sprintf( __( 'Lightbox could not be reached: %s', 'lightbox' ), $response->get_error_message() ) );
		}

		$status = (int) wp_remote_retrieve_response_code( $response );
		if ( 304 === $status && null !== $cached ) {
			$cached['checked'] = time();
			set_transient( $cache_key, $cached, self::CACHE_KEEP );
			return self::result( 200, $cached['body'], null, true );
		}
		$body = json_decode( (string) wp_remote_retrieve_body( $response ), true );
		if ( 200 === $status && is_array( $body ) ) {
			if ( $use_cache ) {
				$etag = (string) wp_remote_retrieve_header( $response, 'etag' );
				set_transient(
					$cache_key,
					array(
						'etag'    => $etag,
						'body'    => $body,
						'checked' => time(),
					),
					self::CACHE_KEEP
				);
			}
			return self::result( 200, $body, null );
		}
		if ( $status >= 500 && null !== $cached ) {
			return self::result( 200, $cached['body'], null, true );
		}
		if ( null !== $cached ) {
			delete_transient( $cache_key );
		}
		$message = is_array( $body ) && isset( $body['error']['message'] ) && is_string( $body['error']['message'] )
			? $body['error']['message']
			/* translators: %d: HTTP status code. */
			: sprintf( __( 'Lightbox answered HTTP %d.', 'lightbox' ), $status );
		return self::result( $status, is_array( $body ) ? $body : null, $message );
	}

	/**
	 * The transient name for a path: the base URL, the path and a digest of the key, so another
	 * key or server never sees this one's answers (the key itself is not stored).
	 *
	 * @param string $path Path and query.
	 */
	private function cache_key( string $path ): string {
		return self::CACHE_PREFIX . md5( $this->base_url . "\n" . $path . "\n" . hash( 'sha256', $this->api_key ) );
	}

	/**
	 * A result array.
	 *
	 * @param int         $status HTTP status (0 when there was no answer).
	 * @param mixed       $body   Decoded JSON.
	 * @param string|null $error  Error message.
	 * @param bool        $cached Whether it came from the cache.
	 * @return array{status: int, body: mixed, error: string|null, cached: bool}
	 */
	private static function result( int $status, $body, ?string $error, bool $cached = false ): array {
		return array(
			'status' => $status,
			'body'   => $body,
			'error'  => $error,
			'cached' => $cached,
		);
	}
}
