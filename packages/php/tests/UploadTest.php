<?php

declare(strict_types=1);

namespace Lightbox\Tests;

use Lightbox\LightboxObject;
use Lightbox\Tests\Support\LiveTestCase;
use Lightbox\Tests\Support\Process;

final class UploadTest extends LiveTestCase
{
    public function testUploadsFromPathsBytesAndStreamsAndDownloads(): void
    {
        $lb = self::client();
        $gallery = $lb->listings->create(['address' => '6 Upload Street']);
        $path = self::tempFile(self::png());
        $open = fopen($path, 'rb');
        $memory = fopen('php://memory', 'w+b');
        fwrite($memory, self::png());
        rewind($memory);
        try {
            $answer = $lb->media->upload($gallery->id, [
                $path,
                ['data' => self::png(), 'filename' => 'bytes.png'],
                $open,
                ['file' => $memory, 'filename' => 'memory.png'],
                new \SplFileInfo($path),
            ]);
        } finally {
            fclose($open);
            fclose($memory);
        }
        self::assertCount(5, $answer->data);
        self::assertSame(
            [basename($path), 'bytes.png', basename($path), 'memory.png', basename($path)],
            array_map(fn ($m) => $m->filename, $answer->data)
        );
        foreach ($answer->data as $media) {
            self::assertSame(hash('sha256', self::png()), $media->sha256);
            self::assertSame('photo', $media->kind);
        }
        $first = $answer->data[0];
        self::assertSame(self::png(), $lb->media->download($gallery->id, $first->id)->body);
        $sink = tempnam(sys_get_temp_dir(), 'sink');
        $response = $lb->media->download($gallery->id, $first->id, ['sink' => $sink]);
        self::assertSame('', $response->body);
        self::assertSame(self::png(), file_get_contents($sink));
        unlink($sink);
        self::assertSame(206, $lb->media->download($gallery->id, $first->id, ['range' => 'bytes=0-3'])->status);

        $ids = array_map(fn ($m) => $m->id, $answer->data);
        $reordered = $lb->media->reorder($gallery->id, array_reverse($ids));
        self::assertSame(array_reverse($ids), array_map(fn ($m) => $m->id, $reordered->data));
        // API section 30: every visible photo once, a reason for each in the same order.
        $suggested = $lb->media->suggestedOrder($gallery->id);
        self::assertInstanceOf(LightboxObject::class, $suggested);
        $suggestedIds = $suggested->media_ids;
        sort($suggestedIds);
        $sortedIds = $ids;
        sort($sortedIds);
        self::assertSame($sortedIds, $suggestedIds);
        self::assertSame($suggested->media_ids, array_map(fn ($r) => $r->media_id, $suggested->reasons));
        $captioned = $lb->media->update($gallery->id, $first->id, ['caption' => 'Front']);
        self::assertSame('Front', $captioned->caption);
        self::assertCount(5, $lb->media->all($gallery->id));
        self::assertNull($lb->media->delete($gallery->id, $first->id));
        unlink($path);
    }

    public function testMediaFromAUrl(): void
    {
        $dir = sys_get_temp_dir() . '/lightbox-files-' . bin2hex(random_bytes(4));
        mkdir($dir);
        file_put_contents($dir . '/front.png', self::png());
        $port = \Lightbox\Tests\Support\TestServer::freePort();
        $files = new Process([PHP_BINARY, '-S', '127.0.0.1:' . $port, '-t', $dir], $port, $dir . '/server');
        try {
            $lb = self::client();
            $gallery = $lb->listings->create(['address' => '21 Fetch Street']);
            $answer = $lb->media->createFromUrl($gallery->id, "http://127.0.0.1:{$port}/front.png", 'renamed.png');
            self::assertCount(1, $answer->data);
            self::assertSame('renamed.png', $answer->data[0]->filename);
            self::assertSame(hash('sha256', self::png()), $answer->data[0]->sha256);
            self::assertSame(201, $answer->getLastResponse()?->status);
        } finally {
            $files->stop();
            exec('rm -rf ' . escapeshellarg($dir));
        }
    }

    public function testADownloadCutHalfWayIsRetriedIntoTheSinkFromItsStart(): void
    {
        $lb = self::client();
        $gallery = $lb->listings->create(['address' => '5 Sink Street']);
        $path = self::bigPng(1024 * 1024);
        $media = $lb->media->upload($gallery->id, [$path])->data[0];
        $proxy = Process::proxy(self::server()->port, 'cut-first-get-answer');
        $sink = fopen('php://temp', 'w+b');
        fwrite($sink, 'kept before');
        try {
            $viaProxy = self::client(['base_url' => 'http://127.0.0.1:' . $proxy->port]);
            $response = $viaProxy->media->download($gallery->id, $media->id, ['sink' => $sink]);
            self::assertSame(200, $response->status);
            self::assertStringEndsWith('answer cut', $proxy->lines()[0]);
            self::assertCount(2, $proxy->lines());
            rewind($sink);
            self::assertSame('kept before' . file_get_contents($path), stream_get_contents($sink));
        } finally {
            $proxy->stop();
            fclose($sink);
            unlink($path);
        }
    }

    public function testAResumableUploadCutInTheMiddleGoesOn(): void
    {
        $lb = self::client();
        $gallery = $lb->listings->create(['address' => '7 Resume Road']);
        $path = self::bigPng(6 * 1024 * 1024);
        $proxy = Process::proxy(self::server()->port, 'cut-first-patch');
        try {
            $viaProxy = self::client(['base_url' => 'http://127.0.0.1:' . $proxy->port]);
            $progress = [];
            $media = $viaProxy->media->uploadResumable($gallery->id, $path, [
                'chunk_size' => 2 * 1024 * 1024,
                'on_progress' => function (int $sent, int $total) use (&$progress): void {
                    $progress[] = [$sent, $total];
                },
            ]);
            self::assertContains('PATCH', array_map(fn ($l) => explode(' ', $l)[0], $proxy->lines()));
            self::assertStringEndsWith(' cut', $proxy->lines()[1]);
            self::assertContains('HEAD', array_map(fn ($l) => explode(' ', $l)[0], $proxy->lines()));
            self::assertInstanceOf(LightboxObject::class, $media);
            self::assertSame(hash_file('sha256', $path), $media->sha256);
            self::assertSame(filesize($path), $media->size);
            self::assertSame(basename($path), $media->filename);
            self::assertSame([filesize($path), filesize($path)], end($progress));
        } finally {
            $proxy->stop();
            unlink($path);
        }
    }

    public function testAnUploadLeftByAnEarlierProcessIsResumedFromItsUrl(): void
    {
        $lb = self::client();
        $gallery = $lb->listings->create(['address' => '8 Restart Row']);
        $path = self::bigPng(3 * 1024 * 1024);
        $url = null;
        try {
            $lb->media->uploadResumable($gallery->id, $path, [
                'chunk_size' => 1024 * 1024,
                'on_upload_url' => function (string $u) use (&$url): void {
                    $url = $u;
                },
                'on_progress' => function (int $sent): void {
                    throw new \RuntimeException("the process died at {$sent}");
                },
            ]);
            self::fail('the upload should have stopped');
        } catch (\RuntimeException $e) {
            self::assertSame('the process died at 1048576', $e->getMessage());
        }
        self::assertIsString($url);
        self::assertSame(1024 * 1024, $lb->media->getUploadOffset($url)['offset']);
        $progress = [];
        $media = $lb->media->uploadResumable($gallery->id, $path, [
            'upload_url' => $url,
            'chunk_size' => 1024 * 1024,
            'on_progress' => function (int $sent) use (&$progress): void {
                $progress[] = $sent;
            },
        ]);
        self::assertSame([1048576, 2097152, 3145728], $progress);
        self::assertSame(hash_file('sha256', $path), $media->sha256);

        $other = $lb->media->createUpload($gallery->id, 10, 'x.png');
        $lb->media->abandonUpload($other);
        $this->expectException(\Lightbox\Exception\NotFoundException::class);
        try {
            $lb->media->getUploadOffset($other);
        } finally {
            unlink($path);
            self::assertSame('1.0.0', $lb->media->describeUploads($gallery->id)->header('tus-version'));
        }
    }

    /**
     * The brief's measure: a 1 GiB file uploaded from its path keeps the process's memory flat
     * (CURLFile streams it): PHP's own peak (memory_get_peak_usage) and the whole process's peak
     * resident set (VmHWM, reset first through /proc/self/clear_refs so it is this upload's alone).
     * bench/upload_memory.php measures the resumable and PSR-18 ways too. Set
     * LIGHTBOX_PHP_SKIP_LARGE=1 to leave it out on a small machine.
     */
    public function testAOneGibUploadFromAPathIsStreamed(): void
    {
        if (getenv('LIGHTBOX_PHP_SKIP_LARGE') === '1') {
            self::markTestSkipped('LIGHTBOX_PHP_SKIP_LARGE=1');
        }
        $lb = self::client();
        $gallery = $lb->listings->create(['address' => '1 GiB Boulevard']);
        $path = self::bigPng(1 << 30);
        try {
            [$started, $answer, $php, $rss] = self::measured(fn () => $lb->media->upload($gallery->id, [$path]));
            $line = sprintf(
                "1 GiB upload: PHP peak +%.2f MiB, process peak RSS +%.1f MiB over its %.1f MiB before, in %.1f s\n",
                $php / 1048576,
                $rss['grew'] / 1024,
                $rss['before'] / 1024,
                microtime(true) - $started
            );
            file_put_contents(sys_get_temp_dir() . '/lightbox-php-1gib.txt', $line);
            fwrite(STDERR, $line);
            self::assertSame(1 << 30, $answer->data[0]->size);
            self::assertLessThan(8 * 1048576, $php, $line);
            self::assertLessThan(32 * 1024, $rss['grew'], $line);
        } finally {
            unlink($path);
        }
    }

    /** A resumable upload reads each chunk as it is sent: 64 MiB in 16 MiB chunks stays flat too. */
    public function testAResumableUploadKeepsMemoryFlat(): void
    {
        $lb = self::client();
        $gallery = $lb->listings->create(['address' => '64 MiB Row']);
        $path = self::bigPng(64 << 20);
        try {
            [, $media, $php, $rss] = self::measured(
                fn () => $lb->media->uploadResumable($gallery->id, $path, ['chunk_size' => 16 << 20])
            );
            self::assertSame(64 << 20, $media->size);
            self::assertSame(hash_file('sha256', $path), $media->sha256);
            self::assertLessThan(4 * 1048576, $php, "PHP peak grew {$php} bytes");
            self::assertLessThan(12 * 1024, $rss['grew'], "peak RSS grew {$rss['grew']} KiB");
        } finally {
            unlink($path);
        }
    }

    /**
     * Runs `$fn` and answers [its start time, its answer, PHP's peak growth in bytes, and the
     * process's peak RSS in KiB before and its growth (VmHWM reset first)].
     *
     * @return array{0: float, 1: mixed, 2: int, 3: array{before: int, grew: int}}
     */
    private static function measured(callable $fn): array
    {
        gc_collect_cycles();
        memory_reset_peak_usage();
        $before = memory_get_usage();
        file_put_contents('/proc/self/clear_refs', '5');
        $rssBefore = self::status('VmHWM');
        $started = microtime(true);
        $answer = $fn();
        $php = memory_get_peak_usage() - $before;
        return [$started, $answer, $php, ['before' => $rssBefore, 'grew' => self::status('VmHWM') - $rssBefore]];
    }

    /** A line of /proc/self/status, in KiB. */
    private static function status(string $name): int
    {
        preg_match('/^' . $name . ':\s+(\d+) kB/m', (string) file_get_contents('/proc/self/status'), $m);
        return (int) ($m[1] ?? 0);
    }

    /** A PNG of `$size` bytes: a real 1x1 image followed by zeros (sparse on disk, sniffed as PNG). */
    private static function bigPng(int $size): string
    {
        $path = self::tempFile(self::png());
        $f = fopen($path, 'r+b');
        ftruncate($f, $size);
        // Bytes that differ along the file, so an offset mistake changes the checksum.
        for ($at = 1 << 16; $at < $size; $at += 1 << 20) {
            fseek($f, $at);
            fwrite($f, pack('N', $at));
        }
        fclose($f);
        return $path;
    }
}
