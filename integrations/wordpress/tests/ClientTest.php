<?php
/**
 * Lightbox_Client: the key in the Authorization header only, answers cached in transients and
 * revalidated with If-None-Match (docs/api.md §17), stale answers when Lightbox is unreachable.
 *
 * @package Lightbox
 */

use PHPUnit\Framework\TestCase;

/**
 * Client tests.
 */
final class ClientTest extends TestCase {

	private const KEY = 'lbx_live_secret_0123456789';

	private FakeLightbox $lightbox;

	private Lightbox_Client $client;

	protected function setUp(): void {
		WP_Stub_State::reset();
		$this->lightbox                              = new FakeLightbox();
		$this->lightbox->routes['/v1/listings/lst_1'] = array( 200, array( 'id' => 'lst_1', 'address' => '1 Quay' ) );
		$this->client                                = new Lightbox_Client( 'https://lightbox.example/', self::KEY );
	}

	private function always_revalidate(): void {
		add_filter( 'lightbox_cache_fresh_seconds', fn () => 0 );
	}

	public function test_gets_with_the_key_in_the_authorization_header(): void {
		$answer = $this->client->get( '/v1/listings/lst_1' );
		$this->assertSame( 200, $answer['status'] );
		$this->assertSame( '1 Quay', $answer['body']['address'] );
		$this->assertFalse( $answer['cached'] );
		[ $url, $args ] = $this->lightbox->requests[0];
		$this->assertSame( 'https://lightbox.example/v1/listings/lst_1', $url );
		$this->assertSame( 'GET', $args['method'] );
		$this->assertSame( 'Bearer ' . self::KEY, $args['headers']['Authorization'] );
		$this->assertArrayNotHasKey( 'If-None-Match', $args['headers'] );
		$this->assertStringNotContainsString( self::KEY, $args['user-agent'] );
	}

	public function test_a_fresh_cached_answer_needs_no_request(): void {
		$this->client->get( '/v1/listings/lst_1' );
		$again = $this->client->get( '/v1/listings/lst_1' );
		$this->assertCount( 1, $this->lightbox->requests );
		$this->assertTrue( $again['cached'] );
		$this->assertSame( '1 Quay', $again['body']['address'] );
	}

	public function test_an_older_answer_is_revalidated_with_if_none_match_and_a_304_keeps_it(): void {
		$this->always_revalidate();
		$first = $this->client->get( '/v1/listings/lst_1' );
		$this->assertFalse( $first['cached'] );
		$again = $this->client->get( '/v1/listings/lst_1' );
		$this->assertCount( 2, $this->lightbox->requests );
		$this->assertMatchesRegularExpression( '/^W\/"[0-9a-f]{32}"$/', $this->lightbox->last_headers()['If-None-Match'] );
		$this->assertTrue( $again['cached'], 'answered 304, so the cached body' );
		$this->assertSame( '1 Quay', $again['body']['address'] );
	}

	public function test_a_changed_answer_replaces_the_cached_one(): void {
		$this->always_revalidate();
		$this->client->get( '/v1/listings/lst_1' );
		$this->lightbox->routes['/v1/listings/lst_1'] = array( 200, array( 'id' => 'lst_1', 'address' => '2 Quay' ) );
		$changed = $this->client->get( '/v1/listings/lst_1' );
		$this->assertFalse( $changed['cached'] );
		$this->assertSame( '2 Quay', $changed['body']['address'] );
		$this->client->get( '/v1/listings/lst_1' );
		$this->assertArrayHasKey( 'If-None-Match', $this->lightbox->last_headers() );
		$this->assertSame( '2 Quay', $this->client->get( '/v1/listings/lst_1' )['body']['address'] );
	}

	public function test_the_cache_holds_no_key_and_is_per_key(): void {
		$this->client->get( '/v1/listings/lst_1' );
		$this->assertCount( 1, WP_Stub_State::$transients );
		$name = array_key_first( WP_Stub_State::$transients );
		$this->assertStringStartsWith( 'lightbox_c_', $name );
		$this->assertStringNotContainsString( self::KEY, $name . serialize( WP_Stub_State::$transients ) );
		( new Lightbox_Client( 'https://lightbox.example', 'lbx_live_other' ) )->get( '/v1/listings/lst_1' );
		$this->assertCount( 2, $this->lightbox->requests, 'another key does not read this key\'s cache' );
	}

	public function test_when_lightbox_is_unreachable_the_cached_answer_is_used(): void {
		$this->always_revalidate();
		$this->client->get( '/v1/listings/lst_1' );
		$this->lightbox->routes['/v1/listings/lst_1'] = new WP_Error( 'http_request_failed', 'Connection refused' );
		$stale = $this->client->get( '/v1/listings/lst_1' );
		$this->assertSame( 200, $stale['status'] );
		$this->assertSame( '1 Quay', $stale['body']['address'] );
		$this->lightbox->routes['/v1/listings/lst_1'] = array( 503, array( 'error' => array( 'message' => 'down' ) ) );
		$this->assertSame( '1 Quay', $this->client->get( '/v1/listings/lst_1' )['body']['address'] );
	}

	public function test_unreachable_without_a_cache_is_an_error(): void {
		$this->lightbox->routes['/v1/account'] = new WP_Error( 'http_request_failed', 'Connection refused' );
		$answer                                = $this->client->get( '/v1/account', false );
		$this->assertSame( 0, $answer['status'] );
		$this->assertSame( 'Lightbox could not be reached: Connection refused', $answer['error'] );
	}

	public function test_errors_carry_lightbox_s_message_and_a_404_forgets_the_cache(): void {
		$this->always_revalidate();
		$this->client->get( '/v1/listings/lst_1' );
		unset( $this->lightbox->routes['/v1/listings/lst_1'] );
		$gone = $this->client->get( '/v1/listings/lst_1' );
		$this->assertSame( 404, $gone['status'] );
		$this->assertSame( array(), WP_Stub_State::$transients );
		$this->lightbox->routes['/v1/account'] = array( 401, array( 'error' => array( 'code' => 'unauthorized', 'message' => 'The API key is not valid.' ) ) );
		$this->assertSame( 'The API key is not valid.', $this->client->get( '/v1/account', false )['error'] );
	}

	public function test_the_connection_test_is_never_cached(): void {
		$this->lightbox->routes['/v1/account'] = array( 200, array( 'name' => 'Studio' ) );
		$this->client->get( '/v1/account', false );
		$this->client->get( '/v1/account', false );
		$this->assertCount( 2, $this->lightbox->requests );
		$this->assertSame( array(), WP_Stub_State::$transients );
	}

	public function test_without_settings_nothing_is_requested(): void {
		$answer = ( new Lightbox_Client( '', '' ) )->get( '/v1/account' );
		$this->assertSame( 0, $answer['status'] );
		$this->assertStringContainsString( 'Settings › Lightbox', $answer['error'] );
		$this->assertSame( array(), $this->lightbox->requests );
	}

	public function test_from_options_reads_the_saved_settings(): void {
		WP_Stub_State::$options = array(
			'lightbox_base_url' => 'https://lightbox.example',
			'lightbox_api_key'  => array( 'secret' => self::KEY ),
		);
		$client = Lightbox_Client::from_options();
		$this->assertTrue( $client->is_configured() );
		$client->get( '/v1/listings/lst_1' );
		$this->assertSame( 'Bearer ' . self::KEY, $this->lightbox->last_headers()['Authorization'] );
	}

	public function test_a_key_saved_as_a_plain_string_is_not_used(): void {
		WP_Stub_State::$options = array(
			'lightbox_base_url' => 'https://lightbox.example',
			'lightbox_api_key'  => self::KEY,
		);
		$this->assertSame( '', Lightbox_Client::saved_key() );
		$this->assertFalse( Lightbox_Client::from_options()->is_configured() );
	}
}
