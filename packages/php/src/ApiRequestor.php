<?php

declare(strict_types=1);

namespace Lightbox;

use Lightbox\Exception\ApiErrorException;
use Lightbox\Exception\ConnectionException;
use Lightbox\Exception\InvalidArgumentException;
use Lightbox\Exception\TimeoutException;
use Lightbox\HttpClient\ClientInterface;
use Lightbox\HttpClient\MultipartBody;
use Lightbox\HttpClient\Response;
use Lightbox\HttpClient\StreamBody;
use Lightbox\Util\Util;

/**
 * The engine under every service: headers, the API key, typed errors, and bounded retries.
 *
 * Retried: connection failures, timeouts, 429 and 503 (after `Retry-After` when sent, unless it
 * asks for more than a minute) and other 5xx (exponential backoff with jitter). A POST is retried
 * only with an Idempotency-Key, so one is generated when the caller gives none; every other method
 * of this API is idempotent.
 */
final class ApiRequestor
{
    /** A `Retry-After` longer than this is not waited for: the error is thrown. */
    public const MAX_RETRY_AFTER_SECONDS = 60;

    /** @var \Closure(float): void */
    private \Closure $sleep;

    /**
     * The key, behind a closure: var_export prints every property as it is (__debugInfo does not
     * apply), but never what a closure holds.
     *
     * @var \Closure(): string
     */
    private readonly \Closure $apiKey;

    /** The key as debugging output shows it: its prefix and last 4 characters (stripe-php's way). */
    public readonly string $redactedApiKey;

    /**
     * @param array<string, string> $headers sent with every request
     */
    public function __construct(
        string $apiKey,
        public readonly string $baseUrl,
        public readonly int $maxRetries,
        public readonly float $timeout,
        private readonly ClientInterface $http,
        private readonly array $headers = []
    ) {
        $this->apiKey = static fn (): string => $apiKey;
        $this->redactedApiKey = self::redact($apiKey);
        $this->sleep = static function (float $seconds): void {
            usleep((int) ($seconds * 1_000_000));
        };
    }

    private static function redact(string $key): string
    {
        $prefix = preg_match('/^[a-z]+_(?:(?:live|test)_)?/', $key, $m) === 1 ? $m[0] : '';
        $rest = substr($key, strlen($prefix));
        return $prefix . (strlen($rest) > 8 ? str_repeat('*', 8) . substr($rest, -4) : str_repeat('*', 8));
    }

    /**
     * What var_dump and print_r show: the key redacted, and headers given for every request
     * without their values when they could carry a credential.
     *
     * @return array<string, mixed>
     */
    public function __debugInfo(): array
    {
        $headers = [];
        foreach ($this->headers as $name => $value) {
            $secret = preg_match('/authorization|key|token|secret|cookie/i', (string) $name) === 1;
            $headers[$name] = $secret ? '[redacted]' : $value;
        }
        return [
            'apiKey' => $this->redactedApiKey,
            'baseUrl' => $this->baseUrl,
            'maxRetries' => $this->maxRetries,
            'timeout' => $this->timeout,
            'http' => $this->http,
            'headers' => $headers,
        ];
    }

    /** Replaces how the requestor waits between attempts (tests count the waits). */
    public function setSleep(\Closure $sleep): void
    {
        $this->sleep = $sleep;
    }

    /** An absolute URL for a path under the base URL, or a URL the server gave, checked to be on the API's origin. */
    public function url(string $path, array $query = []): string
    {
        if (preg_match('#^https?://#i', $path) === 1) {
            $this->assertSameOrigin($path);
            $url = $path;
        } else {
            $url = $this->baseUrl . $path;
        }
        $qs = Util::encodeQuery($query);
        return $qs === '' ? $url : $url . (str_contains($url, '?') ? '&' : '?') . $qs;
    }

    /** Resolves a Location the server handed out; refused unless on the API's origin (it gets the key). */
    public function resolve(string $location): string
    {
        if (str_starts_with($location, '/')) {
            return $this->origin($this->baseUrl) . $location;
        }
        $this->assertSameOrigin($location);
        return $location;
    }

    private function assertSameOrigin(string $url): void
    {
        if ($this->origin($url) !== $this->origin($this->baseUrl)) {
            throw new InvalidArgumentException(
                "refusing to send the API key to {$this->origin($url)}, not the API's origin"
            );
        }
    }

    private function origin(string $url): string
    {
        $p = parse_url($url);
        $scheme = strtolower($p['scheme'] ?? '');
        $port = $p['port'] ?? ($scheme === 'https' ? 443 : 80);
        return $scheme . '://' . strtolower($p['host'] ?? '') . ':' . $port;
    }

    /**
     * Sends a request with its retries and answers the final response; an error answer is thrown.
     *
     * @param array<string, mixed> $query
     * @param null|string|MultipartBody|StreamBody $body
     * @param array<string, mixed> $opts per-request options: `idempotency_key`, `headers`,
     *     `max_retries`, `timeout` (seconds), `sink` (a stream for a download's bytes)
     * @param list<int> $accept statuses that are answers, not errors (304 for conditional GETs)
     * @param array<string, string> $headers
     */
    public function send(
        string $method,
        string $path,
        array $query = [],
        mixed $body = null,
        array $opts = [],
        array $accept = [],
        array $headers = []
    ): Response {
        $all = [];
        foreach ([$this->headers, $headers, $opts['headers'] ?? []] as $set) {
            foreach ($set as $name => $value) {
                $all[strtolower((string) $name)] = (string) $value;
            }
        }
        $all['authorization'] = 'Bearer ' . ($this->apiKey)();
        $all['accept'] ??= 'application/json';
        $all['user-agent'] ??= 'lightbox-php/' . LightboxClient::VERSION . ' PHP/' . PHP_VERSION;
        if ($method === 'POST' && !isset($all['idempotency-key'])) {
            $all['idempotency-key'] = (string) ($opts['idempotency_key'] ?? Util::uuid());
        }
        $maxRetries = (int) ($opts['max_retries'] ?? $this->maxRetries);
        $options = ['timeout' => (float) ($opts['timeout'] ?? $this->timeout)];
        if (isset($opts['sink'])) {
            $options['sink'] = $opts['sink'];
        }
        $url = $this->url($path, $query);
        // A download into a sink starts each attempt where the first began (a cut one leaves bytes).
        $sinkStart = null;
        if (isset($options['sink'])) {
            $meta = stream_get_meta_data($options['sink']);
            $sinkStart = $meta['seekable'] ? ftell($options['sink']) : false;
            if ($sinkStart === false) {
                $maxRetries = 0;
            }
        }

        for ($attempt = 0;; $attempt++) {
            if ($attempt > 0 && is_int($sinkStart)) {
                ftruncate($options['sink'], $sinkStart);
                fseek($options['sink'], $sinkStart);
            }
            try {
                $response = $this->http->send($method, $url, $all, $body, $options);
            } catch (ConnectionException | TimeoutException $e) {
                if ($attempt >= $maxRetries) {
                    throw $e;
                }
                ($this->sleep)($this->backoff($attempt));
                continue;
            }
            if (($response->status >= 200 && $response->status < 300) || in_array($response->status, $accept, true)) {
                return $response;
            }
            $error = ApiErrorException::fromResponse($response->status, $response->headers, $response->body);
            $wait = $this->retryDelay($response, $attempt);
            if ($wait === null || $attempt >= $maxRetries) {
                throw $error;
            }
            ($this->sleep)($wait);
        }
    }

    /** Seconds to wait before retrying an answer, or null when it is final. */
    private function retryDelay(Response $response, int $attempt): ?float
    {
        if ($response->status === 429 || $response->status === 503) {
            $after = Util::retryAfterSeconds($response->headers);
            if ($after !== null) {
                return $after > self::MAX_RETRY_AFTER_SECONDS ? null : $after;
            }
            return $this->backoff($attempt);
        }
        return $response->status >= 500 ? $this->backoff($attempt) : null;
    }

    /** 0.5 s, 1 s, 2 s ... capped at 8 s, each scaled by a random 50-100% (jitter). */
    public function backoff(int $attempt): float
    {
        return min(8.0, 0.5 * (2 ** $attempt)) * (0.5 + mt_rand() / mt_getrandmax() / 2);
    }

    /**
     * A JSON request answered by JSON: the decoded answer (null for 204), with the response.
     *
     * @param array<string, mixed> $query
     * @param array<string, mixed> $opts
     * @return array{0: mixed, 1: Response}
     */
    public function json(string $method, string $path, array $query = [], mixed $json = null, array $opts = []): array
    {
        $headers = [];
        $body = null;
        if ($json !== null) {
            $body = json_encode($json, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_PRESERVE_ZERO_FRACTION);
            $headers['content-type'] = 'application/json';
        }
        $accept = [];
        if (isset($opts['if_none_match'])) {
            $headers['if-none-match'] = (string) $opts['if_none_match'];
            $accept[] = 304;
        }
        $response = $this->send($method, $path, $query, $body, $opts, $accept, $headers);
        if ($response->status === 204 || $response->status === 304 || $response->body === '') {
            return [null, $response];
        }
        return [json_decode($response->body, true, 512, JSON_THROW_ON_ERROR), $response];
    }
}
