<?php

/**
 * A loopback HTTP proxy that misbehaves once, for the tests:
 *   php proxy.php LISTEN_PORT UPSTREAM_PORT MODE LOG
 * MODE `drop-first-post`: the first POST reaches the server, but its answer is dropped (the
 * connection closes with no byte sent back). MODE `cut-first-patch`: the first PATCH's body is
 * cut in the middle (both connections close). MODE `cut-first-get-answer`: the first GET's answer
 * stops half way (the connection closes). MODE `limit-first-post:SECONDS`: the first POST is
 * answered by the proxy itself, 429 `rate_limited` with `Retry-After: SECONDS`, and never reaches
 * the server; in this mode each POST's line ends with its `key=<Idempotency-Key>`. Every other
 * request passes through unchanged, one connection at a time (`Connection: close`). Each request
 * is logged as `METHOD PATH ACTION`.
 */

declare(strict_types=1);

[, $listen, $upstream, $mode, $log] = $argv;
$server = stream_socket_server('tcp://127.0.0.1:' . $listen, $errno, $errstr);
if ($server === false) {
    fwrite(STDERR, "cannot listen: {$errstr}\n");
    exit(1);
}
$done = false;
while (true) {
    $client = @stream_socket_accept($server, -1);
    if ($client === false) {
        continue;
    }
    $head = '';
    while (!str_contains($head, "\r\n\r\n")) {
        $chunk = fread($client, 65536);
        if ($chunk === false || $chunk === '') {
            break;
        }
        $head .= $chunk;
    }
    if (!str_contains($head, "\r\n\r\n")) {
        fclose($client);
        continue;
    }
    [$headers, $rest] = explode("\r\n\r\n", $head, 2);
    $lines = explode("\r\n", $headers);
    [$method, $path] = explode(' ', $lines[0]);
    $length = 0;
    $key = '';
    $out = [$lines[0]];
    foreach (array_slice($lines, 1) as $line) {
        if (stripos($line, 'content-length:') === 0) {
            $length = (int) trim(substr($line, 15));
        }
        if (stripos($line, 'idempotency-key:') === 0) {
            $key = trim(substr($line, 16));
        }
        if (stripos($line, 'connection:') === 0) {
            continue;
        }
        $out[] = $line;
    }
    $out[] = 'Connection: close';
    $limited = str_starts_with($mode, 'limit-first-post:');
    $note = $limited && $method === 'POST' ? " key={$key}" : '';
    if (!$done && $limited && $method === 'POST') {
        $done = true;
        // Take in the whole body, then answer as the API's rate limit does.
        for ($got = strlen($rest); $got < $length; $got += strlen((string) $chunk)) {
            $chunk = fread($client, 65536);
            if ($chunk === false || $chunk === '') {
                break;
            }
        }
        // Log before answering: the test reads the log as soon as the answer reaches it.
        file_put_contents($log, "{$method} {$path} limited{$note}\n", FILE_APPEND);
        $seconds = substr($mode, strlen('limit-first-post:'));
        $body = json_encode(['error' => [
            'code' => 'rate_limited',
            'message' => 'Too many requests',
            'request_id' => 'req_proxy',
        ]]);
        fwrite($client, "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\n"
            . "Retry-After: {$seconds}\r\nX-Request-Id: req_proxy\r\nContent-Length: " . strlen((string) $body)
            . "\r\nConnection: close\r\n\r\n" . $body);
        fclose($client);
        continue;
    }
    $up = stream_socket_client('tcp://127.0.0.1:' . $upstream);
    fwrite($up, implode("\r\n", $out) . "\r\n\r\n");

    $cut = !$done && $mode === 'cut-first-patch' && $method === 'PATCH';
    $limit = $cut ? intdiv($length, 2) : $length;
    $sent = 0;
    $piece = substr($rest, 0, $limit);
    fwrite($up, $piece);
    $sent += strlen($piece);
    while ($sent < $limit) {
        $chunk = fread($client, min(65536, $limit - $sent));
        if ($chunk === false || $chunk === '') {
            break;
        }
        fwrite($up, $chunk);
        $sent += strlen($chunk);
    }
    if ($cut) {
        $done = true;
        file_put_contents($log, "{$method} {$path} cut\n", FILE_APPEND);
        // Let the server take in what came before the cut.
        usleep(300_000);
        fclose($up);
        fclose($client);
        continue;
    }
    $answer = stream_get_contents($up);
    fclose($up);
    if (!$done && $mode === 'drop-first-post' && $method === 'POST') {
        $done = true;
        file_put_contents($log, "{$method} {$path} dropped\n", FILE_APPEND);
        fclose($client);
        continue;
    }
    if (!$done && $mode === 'cut-first-get-answer' && $method === 'GET') {
        $done = true;
        file_put_contents($log, "{$method} {$path} answer cut\n", FILE_APPEND);
        fwrite($client, substr((string) $answer, 0, intdiv(strlen((string) $answer), 2)));
        fclose($client);
        continue;
    }
    file_put_contents($log, "{$method} {$path} passed{$note}\n", FILE_APPEND);
    fwrite($client, (string) $answer);
    fclose($client);
}
