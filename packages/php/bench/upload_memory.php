<?php

/**
 * The library's memory on a big upload (the brief's measure for docs/api.md §23).
 *
 *   php packages/php/bench/upload_memory.php [SIZE_MIB]    (default 1024: 1 GiB; Node 22.18+ on PATH)
 *
 * Starts a real Lightbox (tests/Support/TestServer: SQLite, local disk, a temporary DATA_DIR),
 * writes a file of SIZE_MIB MiB (a 1x1 PNG, then zeros with a marker every MiB), and uploads it to
 * a gallery from a child PHP process each time, so each figure is that process's own:
 *
 * - `baseline`: the child loads the library (init.php) and lists galleries: PHP's own floor;
 * - `multipart`: `$lb->media->upload($id, [$path])`, one request, the file sent as a CURLFile;
 * - `resumable`: `$lb->media->uploadResumable($id, $path)`, tus in 8 MiB PATCHes over curl;
 * - `psr18-multipart`, `psr18-resumable`: the same through Guzzle as the PSR-18 client (Debian's
 *   php-guzzlehttp-guzzle), where bodies are spooled through php://temp.
 *
 * For each: `memory_get_peak_usage()` above what the child held before the call (PHP's allocator),
 * the process's peak resident set (VmHWM of /proc/self/status: everything, curl's buffers
 * included) and the wall time. Run it on purpose (it moves gigabytes); CI does not, but the PHPUnit
 * suite checks the multipart case's PHP peak on every run.
 */

declare(strict_types=1);

require dirname(__DIR__) . '/tests/Support/TestServer.php';

use Lightbox\Tests\Support\TestServer;

$sizeMib = (int) ($argv[1] ?? 1024);
$size = $sizeMib * 1024 * 1024;
$root = dirname(__DIR__);

const CHILD = <<<'PHP'
    [, $root, $mode, $key, $url, $gallery, $path, $size] = $argv;
    require $root . '/init.php';
    $options = ['api_key' => $key, 'base_url' => $url, 'timeout' => 0];
    if (str_starts_with($mode, 'psr18-')) {
        require_once '/usr/share/php/GuzzleHttp/autoload.php';
        $factory = new \GuzzleHttp\Psr7\HttpFactory();
        $options += [
            'http_client' => new \GuzzleHttp\Client(['http_errors' => false, 'allow_redirects' => false]),
            'request_factory' => $factory,
            'stream_factory' => $factory,
        ];
    }
    $lb = new \Lightbox\LightboxClient($options);
    gc_collect_cycles();
    memory_reset_peak_usage();
    $before = memory_get_usage();
    $started = microtime(true);
    if ($mode === 'baseline') {
        $lb->listings->all();
    } elseif (str_ends_with($mode, 'multipart')) {
        $media = $lb->media->upload($gallery, [$path])->data[0];
    } else {
        $media = $lb->media->uploadResumable($gallery, $path, ['chunk_size' => 8 * 1024 * 1024]);
    }
    $seconds = microtime(true) - $started;
    if (isset($media) && $media->size !== (int) $size) {
        fwrite(STDERR, "uploaded {$media->size} bytes, not {$size}\n");
        exit(1);
    }
    preg_match('/^VmHWM:\s+(\d+) kB/m', (string) file_get_contents('/proc/self/status'), $m);
    echo json_encode([
        'before' => $before,
        'peak' => memory_get_peak_usage() - $before,
        'hwm_kib' => (int) $m[1],
        'seconds' => $seconds,
    ]), "\n";
    PHP;

$server = TestServer::main();
$ch = curl_init($server->baseUrl . '/v1/listings');
curl_setopt_array($ch, [
    CURLOPT_POST => true,
    CURLOPT_POSTFIELDS => json_encode(['address' => 'Bench Street']),
    CURLOPT_HTTPHEADER => ['Authorization: Bearer ' . $server->apiKey, 'Content-Type: application/json'],
    CURLOPT_RETURNTRANSFER => true,
]);
$gallery = json_decode((string) curl_exec($ch), true)['id'];

$path = sys_get_temp_dir() . '/lightbox-bench-' . bin2hex(random_bytes(4)) . '.png';
$png = base64_decode(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='
);
file_put_contents($path, $png);
$f = fopen($path, 'r+b');
ftruncate($f, $size);
for ($at = 1 << 16; $at < $size; $at += 1 << 20) {
    fseek($f, $at);
    fwrite($f, pack('N', $at));
}
fclose($f);

$modes = ['baseline', 'multipart', 'resumable'];
if (is_file('/usr/share/php/GuzzleHttp/autoload.php')) {
    array_push($modes, 'psr18-multipart', 'psr18-resumable');
} else {
    fwrite(STDERR, "php-guzzlehttp-guzzle is not installed: the PSR-18 runs are left out\n");
}
printf("%d MiB file, PHP %s, %s\n", $sizeMib, PHP_VERSION, php_uname('m'));
printf("%-16s %22s %20s %10s\n", 'mode', 'PHP peak over before', 'process VmHWM', 'seconds');
try {
    foreach ($modes as $mode) {
        $cmd = [PHP_BINARY, '-r', CHILD, '--', $root, $mode, $server->apiKey, $server->baseUrl, $gallery, $path,
            (string) $size];
        $proc = proc_open($cmd, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        $out = (string) stream_get_contents($pipes[1]);
        $err = (string) stream_get_contents($pipes[2]);
        if (proc_close($proc) !== 0) {
            throw new RuntimeException("{$mode} failed: {$err}{$out}");
        }
        $r = json_decode($out, true, 512, JSON_THROW_ON_ERROR);
        printf(
            "%-16s %11.2f MiB (of %.1f) %16.1f MiB %10.1f\n",
            $mode,
            $r['peak'] / 1048576,
            $r['before'] / 1048576,
            $r['hwm_kib'] / 1024,
            $r['seconds']
        );
    }
} finally {
    unlink($path);
    $server->stop();
}
