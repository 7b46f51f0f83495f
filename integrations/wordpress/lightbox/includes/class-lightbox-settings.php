<?php
/**
 * Settings › Lightbox: the base URL, the API key (saved, never printed back) and a Test connection
 * button that calls GET /v1/account (docs/api.md §20, §26).
 *
 * @package Lightbox
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

/**
 * The settings page.
 */
final class Lightbox_Settings {

	public const PAGE = 'lightbox';

	/**
	 * Hooks the page in.
	 */
	public static function register(): void {
		add_action( 'admin_menu', array( self::class, 'menu' ) );
		add_action( 'admin_init', array( self::class, 'settings' ) );
		add_action( 'admin_post_lightbox_test_connection', array( self::class, 'test_connection' ) );
	}

	/**
	 * Settings › Lightbox.
	 */
	public static function menu(): void {
		add_options_page(
			__( 'Lightbox', 'lightbox' ),
			__( 'Lightbox', 'lightbox' ),
			'manage_options',
			self::PAGE,
			array( self::class, 'render' )
		);
	}

	/**
	 * The two options and their fields.
	 */
	public static function settings(): void {
		register_setting(
			self::PAGE,
			'lightbox_base_url',
			array(
				'type'              => 'string',
				'sanitize_callback' => array( self::class, 'sanitize_base_url' ),
				'default'           => '',
				'show_in_rest'      => false,
			)
		);
		register_setting(
			self::PAGE,
			'lightbox_api_key',
			array(
				'type'              => 'array',
				'sanitize_callback' => array( self::class, 'sanitize_api_key' ),
				'default'           => array(),
				'show_in_rest'      => false,
			)
		);
		add_settings_section( 'lightbox_connection', __( 'Connection', 'lightbox' ), '__return_false', self::PAGE );
		add_settings_field(
			'lightbox_base_url',
			__( 'Base URL', 'lightbox' ),
			array( self::class, 'base_url_field' ),
			self::PAGE,
			'lightbox_connection',
			array( 'label_for' => 'lightbox_base_url' )
		);
		add_settings_field(
			'lightbox_api_key',
			__( 'API key', 'lightbox' ),
			array( self::class, 'api_key_field' ),
			self::PAGE,
			'lightbox_connection',
			array( 'label_for' => 'lightbox_api_key' )
		);
	}

	/**
	 * An http(s) URL without a trailing slash, or the saved one with an error.
	 *
	 * @param mixed $value Submitted value.
	 */
	public static function sanitize_base_url( $value ): string {
		$url = untrailingslashit( esc_url_raw( trim( (string) $value ), array( 'http', 'https' ) ) );
		if ( '' === $url && '' !== trim( (string) $value ) ) {
			add_settings_error( 'lightbox_base_url', 'lightbox_base_url', __( 'The base URL must be an http or https address.', 'lightbox' ) );
			return (string) get_option( 'lightbox_base_url', '' );
		}
		return $url;
	}

	/**
	 * The submitted key, or the saved one when the field was left empty (the field never shows it),
	 * kept as `array( 'secret' => key )` (see Lightbox_Client::saved_key()).
	 *
	 * @param mixed $value Submitted value, or an already sanitized array (WordPress sanitizes
	 *                     again when it adds the option for the first time).
	 * @return array{secret?: string}
	 */
	public static function sanitize_api_key( $value ): array {
		if ( is_array( $value ) && isset( $value['secret'] ) && is_string( $value['secret'] ) ) {
			return array( 'secret' => $value['secret'] );
		}
		$key = is_string( $value ) ? trim( sanitize_text_field( $value ) ) : '';
		if ( '' === $key ) {
			$key = Lightbox_Client::saved_key();
		}
		return '' === $key ? array() : array( 'secret' => $key );
	}

	/**
	 * The base URL input.
	 */
	public static function base_url_field(): void {
		printf(
			'<input type="url" class="regular-text code" id="lightbox_base_url" name="lightbox_base_url" value="%s" placeholder="https://lightbox.example.com" required>',
			esc_attr( (string) get_option( 'lightbox_base_url', '' ) )
		);
		echo '<p class="description">' . esc_html__( 'The address of your Lightbox server.', 'lightbox' ) . '</p>';
	}

	/**
	 * The key input: always empty; says whether a key is saved.
	 */
	public static function api_key_field(): void {
		$saved = '' !== Lightbox_Client::saved_key();
		echo '<input type="password" class="regular-text code" id="lightbox_api_key" name="lightbox_api_key" value="" autocomplete="off" spellcheck="false">';
		echo '<p class="description">';
		if ( $saved ) {
			esc_html_e( 'A key is saved. It is never shown again; leave this empty to keep it, or paste a new one to replace it.', 'lightbox' );
		} else {
			esc_html_e( 'Paste a key made in your Lightbox dashboard (Keys) or with “lightbox keys create”. A read-only key is enough.', 'lightbox' );
		}
		echo '</p>';
	}

	/**
	 * The page.
	 */
	public static function render(): void {
		if ( ! current_user_can( 'manage_options' ) ) {
			return;
		}
		echo '<div class="wrap"><h1>' . esc_html( get_admin_page_title() ) . '</h1>';
		self::test_result_notice();
		settings_errors( 'lightbox_base_url' );
		echo '<form action="' . esc_url( admin_url( 'options.php' ) ) . '" method="post">';
		settings_fields( self::PAGE );
		do_settings_sections( self::PAGE );
		submit_button( __( 'Save settings', 'lightbox' ) );
		echo '</form>';

		echo '<h2>' . esc_html__( 'Test connection', 'lightbox' ) . '</h2>';
		echo '<p>' . esc_html__( 'Asks Lightbox which account the saved key belongs to.', 'lightbox' ) . '</p>';
		echo '<form action="' . esc_url( admin_url( 'admin-post.php' ) ) . '" method="post">';
		echo '<input type="hidden" name="action" value="lightbox_test_connection">';
		wp_nonce_field( 'lightbox_test_connection' );
		submit_button( __( 'Test connection', 'lightbox' ), 'secondary', 'lightbox_test', false );
		echo '</form>';

		echo '<h2>' . esc_html__( 'Showing galleries', 'lightbox' ) . '</h2>';
		echo '<p>' . esc_html__( 'Add the Lightbox gallery block, or one of these shortcodes, to a post or page. Only galleries with a published property page are shown; pasting a property page link on its own line embeds it.', 'lightbox' ) . '</p>';
		echo '<p><code>[lightbox_gallery id="lst_…"]</code> <code>[lightbox_galleries status="active" limit="12"]</code></p>';
		echo '</div>';
	}

	/**
	 * Checks the saved settings with GET /v1/account, then back to the page with the result.
	 */
	public static function test_connection(): void {
		if ( ! current_user_can( 'manage_options' ) ) {
			wp_die( esc_html__( 'Sorry, you are not allowed to manage these settings.', 'lightbox' ), 403 );
		}
		check_admin_referer( 'lightbox_test_connection' );
		$answer = Lightbox_Client::from_options()->get( '/v1/account', false );
		$body   = is_array( $answer['body'] ) ? $answer['body'] : array();
		if ( 200 === $answer['status'] && isset( $body['name'] ) ) {
			$result = array(
				'ok'      => true,
				'message' => sprintf(
					/* translators: 1: studio name, 2: owner's email, 3: key name, 4: "live" or "test". */
					__( 'Connected to %1$s (%2$s) with the key “%3$s”, in %4$s mode.', 'lightbox' ),
					(string) $body['name'],
					(string) ( $body['email'] ?? '' ),
					(string) ( $body['key']['name'] ?? '' ),
					empty( $body['livemode'] ) ? __( 'test', 'lightbox' ) : __( 'live', 'lightbox' )
				),
			);
		} else {
			$result = array(
				'ok'      => false,
				'message' => (string) ( $answer['error'] ?? __( 'Unexpected answer from Lightbox.', 'lightbox' ) ),
			);
		}
		set_transient( 'lightbox_test_' . get_current_user_id(), $result, 5 * MINUTE_IN_SECONDS );
		wp_safe_redirect( add_query_arg( 'lightbox_tested', '1', admin_url( 'options-general.php?page=' . self::PAGE ) ) );
		exit;
	}

	/**
	 * The last connection test's result, once.
	 */
	private static function test_result_notice(): void {
		$key    = 'lightbox_test_' . get_current_user_id();
		$result = get_transient( $key );
		if ( ! is_array( $result ) ) {
			return;
		}
		delete_transient( $key );
		printf(
			'<div class="notice %1$s" id="lightbox-test-result"><p>%2$s</p></div>',
			$result['ok'] ? 'notice-success' : 'notice-error',
			esc_html( (string) $result['message'] )
		);
	}
}
