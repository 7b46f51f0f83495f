<?php

/**
 * A webhook receiver for `php -S`: writes each delivery (its headers as sent, and its raw body)
 * to RECEIVER_DIR as JSON, and answers 204.
 */

declare(strict_types=1);

$dir = (string) getenv('RECEIVER_DIR');
$record = [
    'headers' => getallheaders(),
    'body' => (string) file_get_contents('php://input'),
];
file_put_contents($dir . '/' . microtime(true) . '-' . bin2hex(random_bytes(3)) . '.json', json_encode($record));
http_response_code(204);
