<?php

declare(strict_types=1);

namespace Lightbox;

use Lightbox\Exception\WebhookVerificationException;

/**
 * Verifies a webhook delivery's Standard Webhooks signature (API section 15) and answers its event.
 *
 *     $event = \Lightbox\Webhook::verify(file_get_contents('php://input'), getallheaders(), $secret);
 *
 * Pass the raw body exactly as received (a re-encoded body does not verify). Header names are
 * matched case-insensitively, so getallheaders(), $_SERVER's HTTP_WEBHOOK_ID spellings, PSR-7's
 * getHeaders() (lists of values) and plain arrays all work.
 */
final class Webhook
{
    /** Seconds a delivery's timestamp may be off from this machine's clock. */
    public const DEFAULT_TOLERANCE = 300;

    /**
     * @param array<string, string|list<string>> $headers
     * @throws WebhookVerificationException when a header is missing, or the signature, secret or
     *     timestamp is wrong
     */
    public static function verify(
        string $payload,
        array $headers,
        string $secret,
        int $tolerance = self::DEFAULT_TOLERANCE,
        ?int $now = null
    ): LightboxObject {
        $lower = [];
        foreach ($headers as $name => $value) {
            $name = strtolower(str_replace('_', '-', (string) $name));
            if (str_starts_with($name, 'http-')) {
                $name = substr($name, 5);
            }
            $lower[$name] = is_array($value) ? implode(' ', $value) : (string) $value;
        }
        $id = self::required($lower, 'webhook-id');
        $timestamp = self::required($lower, 'webhook-timestamp');
        $signatures = self::required($lower, 'webhook-signature');

        if (preg_match('/^\d+$/', $timestamp) !== 1) {
            throw self::fail('invalid webhook-timestamp header');
        }
        $now ??= time();
        if (abs($now - (int) $timestamp) > $tolerance) {
            throw self::fail('webhook-timestamp is more than ' . $tolerance . ' seconds from now');
        }
        $key = str_starts_with($secret, 'whsec_') ? substr($secret, 6) : $secret;
        $key = base64_decode($key, true);
        if ($key === false || $key === '') {
            throw self::fail('the secret is not a whsec_ base64 secret');
        }
        $expected = base64_encode(hash_hmac('sha256', $id . '.' . $timestamp . '.' . $payload, $key, true));
        foreach (preg_split('/\s+/', trim($signatures)) ?: [] as $candidate) {
            [$version, $signature] = array_pad(explode(',', $candidate, 2), 2, '');
            if ($version === 'v1' && hash_equals($expected, $signature)) {
                try {
                    $event = json_decode($payload, true, 512, JSON_THROW_ON_ERROR);
                } catch (\JsonException $e) {
                    throw self::fail('the payload is not JSON: ' . $e->getMessage());
                }
                if (!is_array($event) || array_is_list($event)) {
                    throw self::fail('the payload is not an event object');
                }
                return new LightboxObject($event);
            }
        }
        throw self::fail('no matching signature');
    }

    /** @param array<string, string> $headers */
    private static function required(array $headers, string $name): string
    {
        $value = trim($headers[$name] ?? '');
        if ($value === '') {
            throw self::fail("missing {$name} header");
        }
        return $value;
    }

    private static function fail(string $message): WebhookVerificationException
    {
        return WebhookVerificationException::factory($message, null, 'webhook_verification_failed');
    }
}
