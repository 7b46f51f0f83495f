<?php

declare(strict_types=1);

namespace Lightbox\HttpClient;

use Lightbox\Exception\ConnectionException;
use Lightbox\Exception\TimeoutException;

/**
 * The default transport: ext-curl, one handle per client so connections are kept alive. Files go
 * out as CURLFile and stream bodies through a read callback, so a request body is never held whole
 * in memory; a sink receives a download as it arrives.
 */
final class CurlClient implements ClientInterface
{
    /** Seconds with no byte moving, in either direction, before an attempt fails as a timeout. */
    public const IDLE_TIMEOUT = 60;

    private ?\CurlHandle $handle = null;

    public function __construct(private readonly float $connectTimeout = 10.0)
    {
    }

    public function send(string $method, string $url, array $headers, mixed $body, array $options): Response
    {
        if ($this->handle === null) {
            $handle = curl_init();
            if ($handle === false) {
                throw ConnectionException::factory('curl_init failed', null, 'connection_error');
            }
            $this->handle = $handle;
        } else {
            curl_reset($this->handle);
        }
        $ch = $this->handle;
        $timeout = (float) ($options['timeout'] ?? 0);
        $sink = $options['sink'] ?? null;

        $status = 0;
        $responseHeaders = [];
        $responseBody = '';
        $lines = [];
        foreach ($headers as $name => $value) {
            $lines[] = $name . ': ' . $value;
        }
        // No `Expect: 100-continue` round trip before a body.
        $lines[] = 'Expect:';

        curl_setopt_array($ch, [
            CURLOPT_URL => $url,
            CURLOPT_CUSTOMREQUEST => $method,
            CURLOPT_FOLLOWLOCATION => false,
            CURLOPT_CONNECTTIMEOUT_MS => (int) ($this->connectTimeout * 1000),
            CURLOPT_TIMEOUT_MS => (int) ($timeout * 1000),
            CURLOPT_LOW_SPEED_LIMIT => 1,
            CURLOPT_LOW_SPEED_TIME => self::IDLE_TIMEOUT,
            CURLOPT_PROTOCOLS => CURLPROTO_HTTP | CURLPROTO_HTTPS,
            CURLOPT_HEADERFUNCTION => function ($ch, string $line) use (&$status, &$responseHeaders): int {
                $trimmed = trim($line);
                if (preg_match('#^HTTP/\S+\s+(\d{3})#', $trimmed, $m) === 1) {
                    $status = (int) $m[1];
                    $responseHeaders = [];
                } elseif (str_contains($trimmed, ':')) {
                    [$name, $value] = explode(':', $trimmed, 2);
                    $name = strtolower(trim($name));
                    $value = trim($value);
                    $responseHeaders[$name] = isset($responseHeaders[$name])
                        ? $responseHeaders[$name] . ', ' . $value : $value;
                }
                return strlen($line);
            },
            CURLOPT_WRITEFUNCTION => function ($ch, string $data) use (&$status, &$responseBody, $sink): int {
                if ($sink !== null && $status >= 200 && $status < 300) {
                    $written = fwrite($sink, $data);
                    return $written === false ? 0 : $written;
                }
                $responseBody .= $data;
                return strlen($data);
            },
        ]);
        if ($method === 'HEAD') {
            curl_setopt($ch, CURLOPT_NOBODY, true);
        }
        if (is_string($body)) {
            curl_setopt($ch, CURLOPT_POSTFIELDS, $body);
        } elseif ($body instanceof MultipartBody) {
            $fields = [];
            foreach ($body->files as $i => $file) {
                $fields["files[{$i}]"] = $file;
            }
            curl_setopt($ch, CURLOPT_POSTFIELDS, $fields);
        } elseif ($body instanceof StreamBody) {
            if (fseek($body->stream, $body->offset) !== 0) {
                throw new \RuntimeException('cannot seek the stream to ' . $body->offset);
            }
            $left = $body->length;
            $stream = $body->stream;
            curl_setopt_array($ch, [
                CURLOPT_UPLOAD => true,
                CURLOPT_INFILESIZE => $body->length,
                CURLOPT_READFUNCTION => function ($ch, $fh, int $size) use (&$left, $stream): string {
                    if ($left <= 0) {
                        return '';
                    }
                    $data = fread($stream, min($size, $left));
                    if ($data === false) {
                        return '';
                    }
                    $left -= strlen($data);
                    return $data;
                },
            ]);
            // CURLOPT_UPLOAD means PUT unless told otherwise.
            curl_setopt($ch, CURLOPT_CUSTOMREQUEST, $method);
        }
        curl_setopt($ch, CURLOPT_HTTPHEADER, $lines);

        $ok = curl_exec($ch);
        if ($ok === false) {
            $errno = curl_errno($ch);
            $message = curl_error($ch);
            $this->handle = null;
            if ($errno === CURLE_OPERATION_TIMEDOUT) {
                throw TimeoutException::factory("no answer in time from {$url}: {$message}", null, 'timeout');
            }
            throw ConnectionException::factory("could not reach {$url}: {$message}", null, 'connection_error');
        }
        return new Response($status, $responseHeaders, $responseBody);
    }
}
