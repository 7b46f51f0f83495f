<?php

declare(strict_types=1);

namespace Lightbox\Tests\Support;

use Psr\Http\Client\ClientInterface;
use Psr\Http\Message\RequestInterface;
use Psr\Http\Message\ResponseFactoryInterface;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\StreamFactoryInterface;

/**
 * A small PSR-18 client of the tests, as a plugin might bring its own: HTTP/1.1 over a plain
 * socket, no curl. It sends the request body by reading its PSR-7 stream 64 KiB at a time
 * (chunked when the size is unknown), reads the answer into php://temp, and records each request
 * (`METHOD PATH BYTES`) and where each body's stream lives (its `uri` metadata), so the tests
 * see how the library built its bodies.
 */
final class SocketHttpClient implements ClientInterface
{
    /** @var list<string> */
    public array $requests = [];
    /** @var list<string> `METHOD uri` of each request that had a body */
    public array $bodies = [];

    public function __construct(
        private readonly ResponseFactoryInterface $responses,
        private readonly StreamFactoryInterface $streams
    ) {
    }

    public function sendRequest(RequestInterface $request): ResponseInterface
    {
        $uri = $request->getUri();
        $target = 'tcp://' . $uri->getHost() . ':' . ($uri->getPort() ?? 80);
        $socket = @stream_socket_client($target, $errno, $errstr, 10);
        if ($socket === false) {
            throw new SocketNetworkException("cannot connect to {$target}: {$errstr}", $request);
        }
        stream_set_timeout($socket, 60);
        $body = $request->getBody();
        $size = $body->getSize();
        $head = $request->getMethod() . ' ' . $request->getRequestTarget() . " HTTP/1.1\r\n"
            . 'Host: ' . $uri->getHost() . ($uri->getPort() !== null ? ':' . $uri->getPort() : '') . "\r\n";
        foreach ($request->getHeaders() as $name => $values) {
            $skip = ['host', 'connection', 'content-length', 'transfer-encoding'];
            if (in_array(strtolower((string) $name), $skip, true)) {
                continue;
            }
            $head .= $name . ': ' . implode(', ', $values) . "\r\n";
        }
        $hasBody = $size !== 0 && !in_array($request->getMethod(), ['GET', 'HEAD'], true);
        if ($hasBody) {
            $head .= $size === null ? "Transfer-Encoding: chunked\r\n" : "Content-Length: {$size}\r\n";
        }
        $head .= "Connection: close\r\n\r\n";
        $sent = 0;
        try {
            self::write($socket, $head, $request);
            if ($hasBody) {
                $this->bodies[] = $request->getMethod() . ' ' . (string) $body->getMetadata('uri');
                if ($body->isSeekable()) {
                    $body->rewind();
                }
                while (!$body->eof()) {
                    $chunk = $body->read(65536);
                    if ($chunk === '') {
                        continue;
                    }
                    $sent += strlen($chunk);
                    $framed = $size === null ? dechex(strlen($chunk)) . "\r\n{$chunk}\r\n" : $chunk;
                    self::write($socket, $framed, $request);
                }
                if ($size === null) {
                    self::write($socket, "0\r\n\r\n", $request);
                }
            }
            $this->requests[] = $request->getMethod() . ' ' . $uri->getPath() . ' ' . $sent;
            return $this->read($socket, $request);
        } finally {
            fclose($socket);
        }
    }

    /** @param resource $socket */
    private static function write($socket, string $data, RequestInterface $request): void
    {
        while ($data !== '') {
            $n = @fwrite($socket, $data);
            if ($n === false || $n === 0) {
                throw new SocketNetworkException('the connection closed while sending', $request);
            }
            $data = substr($data, $n);
        }
    }

    /** @param resource $socket */
    private function read($socket, RequestInterface $request): ResponseInterface
    {
        $head = '';
        while (!str_contains($head, "\r\n\r\n")) {
            $line = fgets($socket);
            if ($line === false) {
                throw new SocketNetworkException('the connection closed before an answer', $request);
            }
            $head .= $line;
        }
        $lines = explode("\r\n", trim($head));
        if (preg_match('#^HTTP/\S+ (\d{3})#', $lines[0], $m) !== 1) {
            throw new SocketNetworkException('not an HTTP answer: ' . $lines[0], $request);
        }
        $response = $this->responses->createResponse((int) $m[1]);
        $headers = [];
        foreach (array_slice($lines, 1) as $line) {
            [$name, $value] = array_map('trim', explode(':', $line, 2));
            $headers[strtolower($name)] = $value;
            $response = $response->withAddedHeader($name, $value);
        }
        $out = fopen('php://temp/maxmemory:2097152', 'w+b');
        $status = (int) $m[1];
        if ($request->getMethod() !== 'HEAD' && $status !== 204 && $status !== 304) {
            if (($headers['transfer-encoding'] ?? '') === 'chunked') {
                while (($line = fgets($socket)) !== false) {
                    $length = hexdec(trim($line));
                    if ($length === 0) {
                        break;
                    }
                    self::copy($socket, $out, (int) $length, $request);
                    fgets($socket);
                }
            } elseif (isset($headers['content-length'])) {
                self::copy($socket, $out, (int) $headers['content-length'], $request);
            } else {
                stream_copy_to_stream($socket, $out);
            }
        }
        rewind($out);
        return $response->withBody($this->streams->createStreamFromResource($out));
    }

    /**
     * @param resource $from
     * @param resource $to
     */
    private static function copy($from, $to, int $length, RequestInterface $request): void
    {
        while ($length > 0) {
            $data = fread($from, min(65536, $length));
            if ($data === false || $data === '') {
                throw new SocketNetworkException('the answer was cut', $request);
            }
            fwrite($to, $data);
            $length -= strlen($data);
        }
    }
}
