<?php
/**
 * A fake Lightbox behind the `pre_http_request` filter: answers from a table of paths, honours
 * If-None-Match like docs/api.md §17, and records every request.
 *
 * @package Lightbox
 */

/**
 * Fake transport.
 */
final class FakeLightbox {

	/**
	 * Requests seen: list of [url, args].
	 *
	 * @var list<array{0: string, 1: array<string, mixed>}>
	 */
	public array $requests = array();

	/**
	 * Path => [status, body]; a WP_Error for a network failure.
	 *
	 * @var array<string, array{0: int, 1: mixed}|WP_Error>
	 */
	public array $routes = array();

	/**
	 * Installs the filter.
	 *
	 * @param string $base Base URL it answers for.
	 */
	public function __construct( private string $base = 'https://lightbox.example' ) {
		add_filter(
			'pre_http_request',
			function ( $pre, $args, $url ) {
				$this->requests[] = array( $url, $args );
				$path             = substr( $url, strlen( $this->base ) );
				$route            = $this->routes[ $path ] ?? array( 404, array( 'error' => array( 'code' => 'not_found', 'message' => 'Not found.' ) ) );
				if ( $route instanceof WP_Error ) {
					return $route;
				}
				[ $status, $body ] = $route;
				$json              = json_encode( $body );
				$etag              = 'W/"' . md5( $json ) . '"';
				if ( 200 === $status && ( $args['headers']['If-None-Match'] ?? null ) === $etag ) {
					return array( 'response' => array( 'code' => 304 ), 'headers' => array( 'etag' => $etag ), 'body' => '' );
				}
				return array(
					'response' => array( 'code' => $status ),
					'headers'  => 200 === $status ? array( 'ETag' => $etag ) : array(),
					'body'     => $json,
				);
			}
		);
	}

	/**
	 * The last request's headers.
	 *
	 * @return array<string, string>
	 */
	public function last_headers(): array {
		return end( $this->requests )[1]['headers'];
	}
}
