<?php

declare(strict_types=1);

namespace Lightbox\Service;

use Lightbox\ApiRequestor;
use Lightbox\Collection;
use Lightbox\Exception\InvalidArgumentException;
use Lightbox\HttpClient\Response;
use Lightbox\LightboxClient;
use Lightbox\LightboxObject;
use Lightbox\NotModified;

/**
 * The base of every resource service (`$lb->listings`, `$lb->media`, ...): how one operation is
 * sent and how its answer becomes a LightboxObject, a Collection, or null (204).
 */
abstract class AbstractService
{
    public function __construct(protected readonly LightboxClient $client)
    {
    }

    protected function requestor(): ApiRequestor
    {
        return $this->client->getRequestor();
    }

    /**
     * Sends one JSON operation. Parameters named in `$queryNames` go in the query string; for an
     * operation with a JSON body the others are the body, else they are query parameters too.
     *
     * @param null|array<string, mixed> $params
     * @param null|array<string, mixed> $opts
     * @param list<string> $queryNames
     * @return null|LightboxObject|Collection|NotModified
     */
    protected function request(
        string $method,
        string $path,
        ?array $params,
        ?array $opts,
        array $queryNames,
        bool $hasBody
    ): mixed {
        $params ??= [];
        $opts ??= [];
        $query = [];
        $body = null;
        if ($hasBody) {
            $body = [];
            foreach ($params as $name => $value) {
                if (in_array($name, $queryNames, true)) {
                    $query[$name] = $value;
                } else {
                    $body[$name] = $value;
                }
            }
            $body = $body === [] ? new \stdClass() : $body;
        } else {
            $query = $params;
        }
        [$data, $response] = $this->requestor()->json($method, $path, $query, $body, $opts);
        if ($response->status === 304) {
            return new NotModified($response->header('etag'), $response);
        }
        if (!is_array($data)) {
            return null;
        }
        if (isset($data['data'], $data['pagination']) && is_array($data['data'])) {
            $fetch = function (array $next) use ($method, $path, $opts, $queryNames, $hasBody): Collection {
                unset($opts['if_none_match']);
                $page = $this->request($method, $path, $next, $opts, $queryNames, $hasBody);
                assert($page instanceof Collection);
                return $page;
            };
            return Collection::page($data, $response, $query, $fetch);
        }
        return new LightboxObject($data, $response);
    }

    /**
     * GETs a file's bytes (a medium's, a variant's, a kit item's) as a Response. Options: `sink` (a
     * path or an open stream: written as they arrive, not kept in memory), `range` (206),
     * `if_none_match` (304), and the usual request options; no overall timeout by default.
     *
     * @param array<string, mixed> $opts
     */
    protected function bytes(string $path, array $opts): Response
    {
        $headers = ['accept' => '*/*'];
        if (isset($opts['range'])) {
            $headers['range'] = (string) $opts['range'];
        }
        if (isset($opts['if_none_match'])) {
            $headers['if-none-match'] = (string) $opts['if_none_match'];
        }
        $close = null;
        if (isset($opts['sink']) && is_string($opts['sink'])) {
            $close = fopen($opts['sink'], 'wb');
            if ($close === false) {
                throw new InvalidArgumentException("cannot write {$opts['sink']}");
            }
            $opts['sink'] = $close;
        }
        $opts['timeout'] ??= 0;
        try {
            return $this->requestor()->send('GET', $path, [], null, $opts, [304], $headers);
        } finally {
            if ($close !== null) {
                fclose($close);
            }
        }
    }

    protected static function segment(string $id): string
    {
        return rawurlencode($id);
    }
}
