<?php

declare(strict_types=1);

namespace Lightbox\Util;

/**
 * Small helpers shared by the client: ids, query strings, Retry-After.
 */
final class Util
{
    /** A random UUID v4, the automatic Idempotency-Key of a POST. */
    public static function uuid(): string
    {
        $b = random_bytes(16);
        $b[6] = chr((ord($b[6]) & 0x0f) | 0x40);
        $b[8] = chr((ord($b[8]) & 0x3f) | 0x80);
        return vsprintf('%s%s-%s-%s-%s-%s%s%s', str_split(bin2hex($b), 4));
    }

    /**
     * A query string: nulls are left out, booleans are `true`/`false` (not PHP's 1 and 0).
     *
     * @param array<string, mixed> $query
     */
    public static function encodeQuery(array $query): string
    {
        $pairs = [];
        foreach ($query as $name => $value) {
            if ($value === null) {
                continue;
            }
            if (is_bool($value)) {
                $value = $value ? 'true' : 'false';
            } elseif (is_array($value)) {
                $value = implode(',', array_map('strval', $value));
            }
            $pairs[] = rawurlencode((string) $name) . '=' . rawurlencode((string) $value);
        }
        return implode('&', $pairs);
    }

    /** A path segment: ids are opaque, so each is escaped. */
    public static function segment(string $id): string
    {
        return rawurlencode($id);
    }

    /**
     * `Retry-After` in seconds (delta-seconds or an HTTP date), or null.
     *
     * @param array<string, string> $headers lower-cased names
     */
    public static function retryAfterSeconds(array $headers): ?float
    {
        $value = trim($headers['retry-after'] ?? '');
        if ($value === '') {
            return null;
        }
        if (preg_match('/^\d+$/', $value) === 1) {
            return (float) $value;
        }
        $at = strtotime($value);
        return $at === false ? null : max(0.0, (float) ($at - time()));
    }
}
