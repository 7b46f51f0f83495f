<?php

declare(strict_types=1);

namespace Lightbox\Tests\Support;

/**
 * A PHP helper process of the tests (the loopback proxy, the webhook receiver), stopped at the end.
 */
final class Process
{
    /** @var resource */
    private $process;

    /**
     * @param list<string> $command
     */
    public function __construct(array $command, public readonly int $port, public readonly string $log)
    {
        $proc = proc_open(
            $command,
            [0 => ['file', '/dev/null', 'r'], 1 => ['file', $log . '.out', 'a'], 2 => ['file', $log . '.out', 'a']],
            $pipes
        );
        if (!is_resource($proc)) {
            throw new \RuntimeException('cannot start ' . implode(' ', $command));
        }
        $this->process = $proc;
        $deadline = microtime(true) + 10;
        while (microtime(true) < $deadline) {
            $socket = @stream_socket_client('tcp://127.0.0.1:' . $port, $errno, $errstr, 1);
            if ($socket !== false) {
                fclose($socket);
                return;
            }
            usleep(50_000);
        }
        throw new \RuntimeException('helper did not listen: ' . @file_get_contents($log . '.out'));
    }

    /** Starts the loopback proxy of tests/Support/proxy.php in front of `$upstream`. */
    public static function proxy(int $upstream, string $mode): self
    {
        $port = TestServer::freePort();
        $log = sys_get_temp_dir() . '/lightbox-proxy-' . bin2hex(random_bytes(4)) . '.log';
        touch($log);
        return new self(
            [PHP_BINARY, __DIR__ . '/proxy.php', (string) $port, (string) $upstream, $mode, $log],
            $port,
            $log
        );
    }

    /** @return list<string> the proxy's log: one line a request, `METHOD PATH ACTION` */
    public function lines(): array
    {
        return array_values(array_filter(explode("\n", (string) file_get_contents($this->log))));
    }

    public function stop(): void
    {
        proc_terminate($this->process, 9);
        proc_close($this->process);
        @unlink($this->log);
        @unlink($this->log . '.out');
    }
}
