<?php
/**
 * Lightbox_Renderer: a published gallery from its property page's public URLs only, escaped;
 * nothing for visitors and a notice for editors when it is unpublished or missing; the grid of
 * published galleries (docs/api.md §25, §26).
 *
 * @package Lightbox
 */

use PHPUnit\Framework\TestCase;

/**
 * Renderer tests.
 */
final class RendererTest extends TestCase {

	private const KEY  = 'lbx_live_secret_0123456789';
	private const PAGE = 'https://lightbox.example/p/tok3n';

	private FakeLightbox $lightbox;

	private Lightbox_Renderer $renderer;

	protected function setUp(): void {
		WP_Stub_State::reset();
		$this->lightbox = new FakeLightbox();
		$this->lightbox->routes['/v1/listings/lst_pub']       = array( 200, self::gallery( 'lst_pub', '12 Harbour <Road> & "Quay"', self::PAGE ) );
		$this->lightbox->routes['/v1/listings/lst_pub/media'] = array(
			200,
			array(
				'data' => array(
					self::photo( 'med_a', 'ready', false, 'Front <door>' ),
					self::photo( 'med_hidden', 'ready', true ),
					self::photo( 'med_pending', 'pending', false ),
					array( 'id' => 'med_pdf', 'kind' => 'document', 'hidden' => false, 'variants' => null ),
					self::photo( 'med_b', 'ready', false ),
				),
			),
		);
		$this->lightbox->routes['/v1/listings/lst_draft']     = array( 200, self::gallery( 'lst_draft', '3 Lane', null ) );
		$this->renderer = new Lightbox_Renderer( new Lightbox_Client( 'https://lightbox.example', self::KEY ) );
	}

	private static function gallery( string $id, string $address, ?string $page ): array {
		return array(
			'id'            => $id,
			'address'       => $address,
			'beds'          => 3,
			'baths'         => 2.5,
			'sqft'          => 1850,
			'status'        => 'active',
			'media_count'   => 5,
			'property_page' => null === $page ? null : array(
				'url'           => $page,
				'unbranded_url' => $page . 'u',
				'published_at'  => '2026-11-27T10:00:00Z',
				'views'         => 0,
			),
		);
	}

	private static function photo( string $id, string $status, bool $hidden, ?string $caption = null ): array {
		return array(
			'id'          => $id,
			'kind'        => 'photo',
			'hidden'      => $hidden,
			'caption'     => $caption,
			'content_url' => 'https://lightbox.example/v1/listings/lst_pub/media/' . $id . '/content',
			'variants'    => array(
				'status' => $status,
				'thumb'  => 'ready' === $status ? array( 'url' => 'https://lightbox.example/v1/x', 'width' => 480, 'height' => 320 ) : null,
			),
		);
	}

	/**
	 * Every src and href in some HTML.
	 *
	 * @return list<string>
	 */
	private static function urls( string $html ): array {
		preg_match_all( '/(?:src|href)="([^"]*)"/', $html, $m );
		return array_map( fn ( $u ) => html_entity_decode( $u, ENT_QUOTES ), $m[1] );
	}

	public function test_a_published_gallery_shows_from_its_property_page_s_public_urls(): void {
		$html = $this->renderer->gallery( array( 'id' => 'lst_pub' ) );
		$this->assertStringContainsString( '<section class="lightbox-gallery">', $html );
		$this->assertStringContainsString( '12 Harbour &lt;Road&gt; &amp; &quot;Quay&quot;', $html );
		$this->assertStringNotContainsString( '<Road>', $html );
		$this->assertStringContainsString( '<li>3 beds</li><li>2.5 baths</li><li>1,850 sq ft</li>', $html );
		$this->assertStringContainsString( 'alt="Front &lt;door&gt;"', $html );
		$this->assertStringContainsString( 'width="480" height="320"', $html );
		$urls = self::urls( $html );
		$this->assertContains( self::PAGE . '/cover.jpg', $urls );
		$this->assertContains( self::PAGE . '/thumb/med_a', $urls );
		$this->assertContains( self::PAGE . '/large/med_b', $urls );
		$this->assertContains( self::PAGE, $urls );
		foreach ( $urls as $url ) {
			$this->assertStringStartsWith( self::PAGE, $url );
		}
		$this->assertStringNotContainsString( 'med_hidden', $html );
		$this->assertStringNotContainsString( 'med_pending', $html );
		$this->assertStringNotContainsString( 'med_pdf', $html );
		$this->assertStringNotContainsString( '/v1/', $html );
		$this->assertStringNotContainsString( self::KEY, $html );
		$this->assertSame( array( 'lightbox' ), WP_Stub_State::$styles );
	}

	public function test_the_block_and_the_shortcode_render_the_same(): void {
		$this->assertSame(
			$this->renderer->gallery( array( 'id' => 'lst_pub' ) ),
			$this->renderer->gallery( array( 'id' => ' lst_pub ' ) )
		);
	}

	public function test_an_unpublished_gallery_shows_nothing_to_visitors_and_a_notice_to_editors(): void {
		$this->assertSame( '', $this->renderer->gallery( array( 'id' => 'lst_draft' ) ) );
		WP_Stub_State::$caps = array( 'edit_posts' );
		$notice              = $this->renderer->gallery( array( 'id' => 'lst_draft' ) );
		$this->assertStringContainsString( 'class="lightbox-notice"', $notice );
		$this->assertStringContainsString( 'lst_draft has no published property page', $notice );
	}

	public function test_a_missing_gallery_shows_nothing_to_visitors_and_a_notice_to_editors(): void {
		$this->assertSame( '', $this->renderer->gallery( array( 'id' => 'lst_gone' ) ) );
		WP_Stub_State::$caps = array( 'edit_posts' );
		$this->assertStringContainsString( 'lst_gone was not found', $this->renderer->gallery( array( 'id' => 'lst_gone' ) ) );
	}

	public function test_a_bad_id_is_never_requested_and_is_escaped_in_the_notice(): void {
		WP_Stub_State::$caps = array( 'edit_posts' );
		$notice              = $this->renderer->gallery( array( 'id' => '"><script>alert(1)</script>' ) );
		$this->assertStringContainsString( '&lt;script&gt;', $notice );
		$this->assertStringNotContainsString( '<script>', $notice );
		$this->assertStringContainsString( 'add a gallery id', $this->renderer->gallery( array() ) );
		$this->assertSame( array(), $this->lightbox->requests );
	}

	public function test_a_property_page_url_that_is_not_http_is_not_published(): void {
		$this->lightbox->routes['/v1/listings/lst_js'] = array( 200, self::gallery( 'lst_js', 'X', 'javascript:alert(1)' ) );
		$this->assertSame( '', $this->renderer->gallery( array( 'id' => 'lst_js' ) ) );
	}

	public function test_the_grid_shows_published_galleries_only_up_to_the_limit(): void {
		$this->lightbox->routes['/v1/listings/lst_pub2']                = array( 200, self::gallery( 'lst_pub2', '9 Pier', 'https://lightbox.example/p/two' ) );
		$this->lightbox->routes['/v1/listings?status=active&limit=100'] = array(
			200,
			array( 'data' => array( array( 'id' => 'lst_draft' ), array( 'id' => 'lst_pub' ), array( 'id' => 'lst_pub2' ) ) ),
		);
		$html = $this->renderer->galleries( array( 'status' => 'active' ) );
		$this->assertSame( 2, substr_count( $html, '<li class="lightbox-galleries__item">' ) );
		$this->assertStringContainsString( 'href="https://lightbox.example/p/two"', $html );
		$this->assertStringContainsString( 'src="' . self::PAGE . '/cover.jpg"', $html );
		$this->assertStringNotContainsString( '3 Lane', $html );
		$this->assertStringNotContainsString( self::KEY, $html );
		$one = $this->renderer->galleries( array( 'limit' => '1' ) );
		$this->assertSame( 1, substr_count( $one, '<li class="lightbox-galleries__item">' ) );
	}

	public function test_the_grid_refuses_an_unknown_status_and_says_when_nothing_is_published(): void {
		WP_Stub_State::$caps = array( 'edit_posts' );
		$this->assertStringContainsString( 'status must be draft, active or archived', $this->renderer->galleries( array( 'status' => 'sold' ) ) );
		$this->lightbox->routes['/v1/listings?status=archived&limit=100'] = array( 200, array( 'data' => array() ) );
		$this->assertStringContainsString( 'no archived gallery has a published property page', $this->renderer->galleries( array( 'status' => 'archived' ) ) );
		WP_Stub_State::$caps = array();
		$this->assertSame( '', $this->renderer->galleries( array( 'status' => 'archived' ) ) );
	}

	public function test_lightbox_errors_are_shown_to_editors_only(): void {
		$this->lightbox->routes['/v1/listings/lst_pub'] = array( 401, array( 'error' => array( 'message' => 'The API key is not valid.' ) ) );
		$this->assertSame( '', $this->renderer->gallery( array( 'id' => 'lst_pub' ) ) );
		WP_Stub_State::$caps = array( 'edit_posts' );
		$this->assertStringContainsString( 'Lightbox: The API key is not valid.', $this->renderer->gallery( array( 'id' => 'lst_pub' ) ) );
	}
}
