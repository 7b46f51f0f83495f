<?php

declare(strict_types=1);

namespace Lightbox;

use Lightbox\Exception\InvalidArgumentException;
use Lightbox\HttpClient\ClientInterface;
use Lightbox\HttpClient\CurlClient;
use Lightbox\HttpClient\Psr18Client;
use Lightbox\Service\ServiceFactory;

/**
 * The Lightbox client: one object per API key, a property per resource service.
 *
 *     $lb = new \Lightbox\LightboxClient(['api_key' => 'lbx_...', 'base_url' => 'https://lightbox.example.com']);
 *     $gallery = $lb->listings->create(['address' => '1 Main St']);
 *
 * Options: `api_key` (else LIGHTBOX_API_KEY), `base_url` (else LIGHTBOX_BASE_URL; without `/v1`),
 * `max_retries` (2), `timeout` (60 seconds an attempt), `headers` (sent with every request), and
 * `http_client`: a Lightbox\HttpClient\ClientInterface, or a PSR-18 client given with its PSR-17
 * `request_factory` and `stream_factory`. The default sends with ext-curl.
 *
 * @property-read \Lightbox\Service\ListingService $listings
 * @property-read \Lightbox\Service\ClientService $clients
 * @property-read \Lightbox\Service\MediaService $media
 * @property-read \Lightbox\Service\NotificationService $notifications
 * @property-read \Lightbox\Service\WebhookEndpointService $webhookEndpoints
 * @property-read \Lightbox\Service\EventService $events
 * @property-read \Lightbox\Service\AccountService $account
 * @property-read \Lightbox\Service\WebhookService $webhooks
 */
class LightboxClient
{
    public const VERSION = '0.1.0';
    public const DEFAULT_MAX_RETRIES = 2;
    public const DEFAULT_TIMEOUT = 60.0;

    private ApiRequestor $requestor;
    private ServiceFactory $services;

    /**
     * @param string|array<string, mixed> $config an API key, or the options above
     */
    public function __construct(string|array $config = [])
    {
        if (is_string($config)) {
            $config = ['api_key' => $config];
        }
        $known = ['api_key', 'base_url', 'max_retries', 'timeout', 'headers', 'http_client',
            'request_factory', 'stream_factory'];
        $unknown = array_diff(array_keys($config), $known);
        if ($unknown !== []) {
            throw new InvalidArgumentException('unknown option(s): ' . implode(', ', $unknown)
                . '; known: ' . implode(', ', $known));
        }
        $apiKey = $config['api_key'] ?? self::env('LIGHTBOX_API_KEY');
        $baseUrl = $config['base_url'] ?? self::env('LIGHTBOX_BASE_URL');
        if (!is_string($apiKey) || $apiKey === '') {
            throw new InvalidArgumentException('api_key is required (or set LIGHTBOX_API_KEY)');
        }
        if (!is_string($baseUrl) || preg_match('#^https?://[^/]#i', $baseUrl) !== 1) {
            throw new InvalidArgumentException(
                'base_url is required, e.g. https://lightbox.example.com (or set LIGHTBOX_BASE_URL)'
            );
        }
        $http = $config['http_client'] ?? null;
        if ($http === null) {
            $http = new CurlClient();
        } elseif (!$http instanceof ClientInterface) {
            if (!Psr18Client::isPsr18($http)) {
                throw new InvalidArgumentException(
                    'http_client must be a Lightbox\HttpClient\ClientInterface or a PSR-18 client'
                );
            }
            $requests = $config['request_factory'] ?? null;
            $streams = $config['stream_factory'] ?? null;
            if (!is_object($requests) || !is_object($streams)) {
                throw new InvalidArgumentException(
                    'a PSR-18 http_client needs request_factory and stream_factory (PSR-17)'
                );
            }
            $http = new Psr18Client($http, $requests, $streams);
        }
        $this->requestor = new ApiRequestor(
            $apiKey,
            rtrim($baseUrl, '/'),
            (int) ($config['max_retries'] ?? self::DEFAULT_MAX_RETRIES),
            (float) ($config['timeout'] ?? self::DEFAULT_TIMEOUT),
            $http,
            $config['headers'] ?? []
        );
        $this->services = new ServiceFactory($this);
    }

    private static function env(string $name): ?string
    {
        $value = getenv($name);
        return $value === false || $value === '' ? null : $value;
    }

    public function __get(string $name): object
    {
        return $this->services->__get($name);
    }

    public function getRequestor(): ApiRequestor
    {
        return $this->requestor;
    }

    public function getBaseUrl(): string
    {
        return $this->requestor->baseUrl;
    }

    /**
     * Any JSON request, for what the services do not cover yet: `$lb->request('GET', '/v1/listings')`.
     * Parameters go in the query of a GET, HEAD or DELETE and in the JSON body otherwise.
     *
     * @param null|array<string, mixed> $params
     * @param null|array<string, mixed> $opts idempotency_key, headers, max_retries, timeout, if_none_match
     * @return null|LightboxObject|Collection|NotModified
     */
    public function request(string $method, string $path, ?array $params = null, ?array $opts = null): mixed
    {
        $method = strtoupper($method);
        $inQuery = in_array($method, ['GET', 'HEAD', 'DELETE', 'OPTIONS'], true);
        [$data, $response] = $this->requestor->json(
            $method,
            $path,
            $inQuery ? ($params ?? []) : [],
            $inQuery ? null : ($params ?? new \stdClass()),
            $opts ?? []
        );
        if ($response->status === 304) {
            return new NotModified($response->header('etag'), $response);
        }
        if (!is_array($data)) {
            return null;
        }
        if (isset($data['data'], $data['pagination'])) {
            $fetch = fn (array $next): Collection => $this->request($method, $path, $next, $opts);
            return Collection::page($data, $response, $params ?? [], $fetch);
        }
        return new LightboxObject($data, $response);
    }

    /**
     * GET /v1/openapi.json: the API's OpenAPI 3.1 document, as an array.
     *
     * @param null|array<string, mixed> $opts
     * @return array<string, mixed>
     */
    public function openapi(?array $opts = null): array
    {
        [$data] = $this->requestor->json('GET', '/v1/openapi.json', [], null, $opts ?? []);
        return is_array($data) ? $data : [];
    }
}
