<?php
/**
 * HTML of the block and the shortcodes: a gallery's published property page inline, and a grid
 * of published galleries (docs/api.md §26). Every image and link is a public property page URL
 * (docs/api.md §25); the key is used server-side only, to read the gallery and its media.
 *
 * @package Lightbox
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * Renders galleries.
 */
final class Lightbox_Renderer {

	/**
	 * The API client.
	 *
	 * @var Lightbox_Client
	 */
	private Lightbox_Client $client;

	/**
	 * Makes a renderer.
	 *
	 * @param Lightbox_Client $client The API client.
	 */
	public function __construct( Lightbox_Client $client ) {
		$this->client = $client;
	}

	/**
	 * [lightbox_gallery id="lst_..."] and the lightbox/gallery block.
	 *
	 * @param array<string, mixed> $atts Shortcode attributes or block attributes.
	 */
	public function gallery( $atts ): string {
		$atts = shortcode_atts( array( 'id' => '' ), is_array( $atts ) ? $atts : array(), 'lightbox_gallery' );
		$id   = trim( (string) $atts['id'] );
		if ( '' === $id ) {
			return $this->notice( __( 'Lightbox gallery: add a gallery id (lst_…) to show it here.', 'lightbox' ) );
		}
		if ( ! self::is_id( $id ) ) {
			/* translators: %s: what was given as a gallery id. */
			return $this->notice( sprintf( __( 'Lightbox gallery: “%s” is not a gallery id.', 'lightbox' ), $id ) );
		}
		$found = $this->published( $id );
		if ( isset( $found['notice'] ) ) {
			return $this->notice( $found['notice'] );
		}
		$gallery = $found['gallery'];
		$page    = $gallery['property_page'];
		$photos  = $this->photos( $id );

		wp_enqueue_style( 'lightbox' );
		$url     = (string) $page['url'];
		$address = (string) ( $gallery['address'] ?? '' );
		$html    = '<section class="lightbox-gallery">';
		if ( array() !== $photos ) {
			$html .= '<a class="lightbox-gallery__cover" href="' . esc_url( $url ) . '">'
				. '<img src="' . esc_url( $url . '/cover.jpg' ) . '" alt="' . esc_attr( $address ) . '" loading="lazy" decoding="async">'
				. '</a>';
		}
		$html .= '<div class="lightbox-gallery__body">';
		$html .= '<h3 class="lightbox-gallery__address"><a href="' . esc_url( $url ) . '">' . esc_html( $address ) . '</a></h3>';
		$html .= $this->facts( $gallery );
		$html .= '</div>';
		if ( array() !== $photos ) {
			$html .= '<ul class="lightbox-gallery__photos">';
			foreach ( $photos as $index => $photo ) {
				$media_id = rawurlencode( (string) $photo['id'] );
				$alt      = isset( $photo['caption'] ) && is_string( $photo['caption'] ) && '' !== $photo['caption']
					? $photo['caption']
					/* translators: 1: the gallery's address, 2: the photo's number. */
					: sprintf( __( '%1$s, photo %2$d', 'lightbox' ), $address, $index + 1 );
				$size     = $this->thumb_size( $photo );
				$html    .= '<li><a href="' . esc_url( $url . '/large/' . $media_id ) . '">'
					. '<img src="' . esc_url( $url . '/thumb/' . $media_id ) . '" alt="' . esc_attr( $alt ) . '"' . $size . ' loading="lazy" decoding="async">'
					. '</a></li>';
			}
			$html .= '</ul>';
		}
		$html .= '<p class="lightbox-gallery__link"><a href="' . esc_url( $url ) . '">' . esc_html__( 'View the property page', 'lightbox' ) . '</a></p>';
		return $html . '</section>';
	}

	/**
	 * [lightbox_galleries status="active" limit="12"]: a grid of published galleries.
	 *
	 * @param array<string, mixed>|string $atts Shortcode attributes.
	 */
	public function galleries( $atts ): string {
		$atts   = shortcode_atts(
			array(
				'status' => 'active',
				'limit'  => '12',
			),
			is_array( $atts ) ? $atts : array(),
			'lightbox_galleries'
		);
		$status = sanitize_key( (string) $atts['status'] );
		if ( ! in_array( $status, array( 'draft', 'active', 'archived' ), true ) ) {
			/* translators: %s: the status given. */
			return $this->notice( sprintf( __( 'Lightbox galleries: status must be draft, active or archived, not “%s”.', 'lightbox' ), $status ) );
		}
		$limit = max( 1, min( 100, absint( $atts['limit'] ) ) );

		// Galleries newest first (docs/api.md §19); only published ones are shown.
		$list = $this->client->get( '/v1/listings?status=' . rawurlencode( $status ) . '&limit=100' );
		if ( 200 !== $list['status'] || ! isset( $list['body']['data'] ) || ! is_array( $list['body']['data'] ) ) {
			return $this->notice( $this->problem( $list ) );
		}
		$cards = array();
		foreach ( $list['body']['data'] as $item ) {
			if ( count( $cards ) >= $limit ) {
				break;
			}
			if ( ! is_array( $item ) || ! isset( $item['id'] ) || ! self::is_id( (string) $item['id'] ) ) {
				continue;
			}
			$found = $this->published( (string) $item['id'] );
			if ( isset( $found['gallery'] ) ) {
				$cards[] = $this->card( $found['gallery'] );
			}
		}
		if ( array() === $cards ) {
			/* translators: %s: a gallery status. */
			return $this->notice( sprintf( __( 'Lightbox galleries: no %s gallery has a published property page yet.', 'lightbox' ), $status ) );
		}
		wp_enqueue_style( 'lightbox' );
		return '<ul class="lightbox-galleries">' . implode( '', $cards ) . '</ul>';
	}

	/**
	 * A gallery with a published property page, or the notice editors see instead.
	 *
	 * @param string $id Gallery id.
	 * @return array{gallery?: array<string, mixed>, notice?: string}
	 */
	private function published( string $id ): array {
		$answer = $this->client->get( '/v1/listings/' . rawurlencode( $id ) );
		if ( 404 === $answer['status'] ) {
			/* translators: %s: gallery id. */
			return array( 'notice' => sprintf( __( 'Lightbox gallery %s was not found in the connected account.', 'lightbox' ), $id ) );
		}
		if ( 200 !== $answer['status'] || ! is_array( $answer['body'] ) ) {
			return array( 'notice' => $this->problem( $answer ) );
		}
		$page = $answer['body']['property_page'] ?? null;
		if ( ! is_array( $page ) || ! isset( $page['url'] ) || ! self::is_public_url( (string) $page['url'] ) ) {
			/* translators: %s: gallery id. */
			return array( 'notice' => sprintf( __( 'Lightbox gallery %s has no published property page: publish it in Lightbox to show it here.', 'lightbox' ), $id ) );
		}
		return array( 'gallery' => $answer['body'] );
	}

	/**
	 * The gallery's visible photos with ready variants, in position order.
	 *
	 * @param string $id Gallery id.
	 * @return list<array<string, mixed>>
	 */
	private function photos( string $id ): array {
		$answer = $this->client->get( '/v1/listings/' . rawurlencode( $id ) . '/media' );
		if ( 200 !== $answer['status'] || ! isset( $answer['body']['data'] ) || ! is_array( $answer['body']['data'] ) ) {
			return array();
		}
		$photos = array();
		foreach ( $answer['body']['data'] as $media ) {
			if ( is_array( $media ) && isset( $media['id'] ) && 'photo' === ( $media['kind'] ?? '' )
				&& empty( $media['hidden'] ) && 'ready' === ( $media['variants']['status'] ?? '' ) ) {
				$photos[] = $media;
			}
		}
		/** Filters how many photos a gallery shows inline (the property page has them all). */
		$max = (int) apply_filters( 'lightbox_gallery_max_photos', 12, $id );
		return array_slice( $photos, 0, max( 0, $max ) );
	}

	/**
	 * One card of the grid.
	 *
	 * @param array<string, mixed> $gallery Gallery object.
	 */
	private function card( array $gallery ): string {
		$url     = (string) $gallery['property_page']['url'];
		$address = (string) ( $gallery['address'] ?? '' );
		$html    = '<li class="lightbox-galleries__item"><a href="' . esc_url( $url ) . '">';
		if ( (int) ( $gallery['media_count'] ?? 0 ) > 0 ) {
			$html .= '<img src="' . esc_url( $url . '/cover.jpg' ) . '" alt="" loading="lazy" decoding="async">';
		}
		$html .= '<span class="lightbox-galleries__address">' . esc_html( $address ) . '</span></a>';
		return $html . $this->facts( $gallery ) . '</li>';
	}

	/**
	 * Beds, baths and area as a list, or nothing.
	 *
	 * @param array<string, mixed> $gallery Gallery object.
	 */
	private function facts( array $gallery ): string {
		$facts = array();
		if ( isset( $gallery['beds'] ) && is_numeric( $gallery['beds'] ) ) {
			$beds = (float) $gallery['beds'];
			/* translators: %s: number of bedrooms. */
			$facts[] = sprintf( _n( '%s bed', '%s beds', (int) ceil( $beds ), 'lightbox' ), number_format_i18n( $beds, floor( $beds ) === $beds ? 0 : 1 ) );
		}
		if ( isset( $gallery['baths'] ) && is_numeric( $gallery['baths'] ) ) {
			$baths = (float) $gallery['baths'];
			/* translators: %s: number of bathrooms. */
			$facts[] = sprintf( _n( '%s bath', '%s baths', (int) ceil( $baths ), 'lightbox' ), number_format_i18n( $baths, floor( $baths ) === $baths ? 0 : 1 ) );
		}
		if ( isset( $gallery['sqft'] ) && is_numeric( $gallery['sqft'] ) ) {
			/* translators: %s: floor area in square feet. */
			$facts[] = sprintf( __( '%s sq ft', 'lightbox' ), number_format_i18n( (float) $gallery['sqft'] ) );
		}
		if ( array() === $facts ) {
			return '';
		}
		return '<ul class="lightbox-gallery__facts"><li>' . implode( '</li><li>', array_map( 'esc_html', $facts ) ) . '</li></ul>';
	}

	/**
	 * Width and height attributes for a thumbnail, from its variant.
	 *
	 * @param array<string, mixed> $photo Media object.
	 */
	private function thumb_size( array $photo ): string {
		$thumb = $photo['variants']['thumb'] ?? null;
		if ( is_array( $thumb ) && isset( $thumb['width'], $thumb['height'] ) ) {
			return ' width="' . absint( $thumb['width'] ) . '" height="' . absint( $thumb['height'] ) . '"';
		}
		return '';
	}

	/**
	 * What went wrong, for editors.
	 *
	 * @param array{status: int, body: mixed, error: string|null} $answer Client result.
	 */
	private function problem( array $answer ): string {
		/* translators: %s: what went wrong. */
		return sprintf( __( 'Lightbox: %s', 'lightbox' ), (string) ( $answer['error'] ?? __( 'unexpected answer.', 'lightbox' ) ) );
	}

	/**
	 * A notice for people who can edit posts; nothing for visitors.
	 *
	 * @param string $message Plain text.
	 */
	private function notice( string $message ): string {
		if ( ! current_user_can( 'edit_posts' ) ) {
			return '';
		}
		return '<div class="lightbox-notice" role="note"><strong>' . esc_html__( 'Only editors see this:', 'lightbox' ) . '</strong> ' . esc_html( $message ) . '</div>';
	}

	/**
	 * Whether a string looks like a Lightbox id.
	 *
	 * @param string $id Candidate.
	 */
	private static function is_id( string $id ): bool {
		return 1 === preg_match( '/^[A-Za-z0-9_-]{1,100}$/', $id );
	}

	/**
	 * Whether a property page URL is http(s) (it is put in src and href attributes).
	 *
	 * @param string $url Candidate.
	 */
	private static function is_public_url( string $url ): bool {
		return 1 === preg_match( '#^https?://[^\s"<>]+$#', $url );
	}
}
