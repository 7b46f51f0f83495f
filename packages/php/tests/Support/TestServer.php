<?php

declare(strict_types=1);

namespace Lightbox\Tests\Support;

/**
 * A real Lightbox for the tests: `node bin/lightbox.js serve` from the repository's root on a free
 * 127.0.0.1 port with a temporary DATA_DIR, an account and keys made with the `lightbox` command,
 * stopped (SIGTERM) and removed when the test run ends.
 */
final class TestServer
{
    public string $baseUrl;
    public string $apiKey;
    public string $readOnlyKey = '';
    /** A full test key (`lbx_test_`) of the same studio (docs/api.md §20), on the main server. */
    public string $testKey = '';
    public int $port;
    public string $dataDir;
    /** @var resource|null */
    private $process = null;
    private static ?TestServer $main = null;

    /** @param array<string, string> $env */
    private function __construct(private readonly array $env, bool $readOnly)
    {
        $this->dataDir = sys_get_temp_dir() . '/lightbox-php-' . bin2hex(random_bytes(6));
        mkdir($this->dataDir, 0700, true);
        $this->port = self::freePort();
        $this->baseUrl = 'http://127.0.0.1:' . $this->port;
        try {
            $this->setUp($readOnly);
        } catch (\Throwable $e) {
            $this->stop();
            throw $e;
        }
    }

    private function setUp(bool $readOnly): void
    {
        $email = 'studio-' . bin2hex(random_bytes(4)) . '@example.com';
        $account = ['accounts', 'create', '--name', 'PHP Studio', '--email', $email];
        self::cli($this->fullEnv(), $account, "php-tests-password\n");
        $this->apiKey = trim(self::cli($this->fullEnv(), ['keys', 'create', '--account', $email, '--name', 'php']));
        if ($readOnly) {
            $this->readOnlyKey = trim(self::cli(
                $this->fullEnv(),
                ['keys', 'create', '--account', $email, '--name', 'php-ro', '--scope', 'read_only']
            ));
            $this->testKey = trim(self::cli(
                $this->fullEnv(),
                ['keys', 'create', '--account', $email, '--name', 'php-test', '--test']
            ));
        }
        $this->start();
    }

    /** The server every test shares. */
    public static function main(): self
    {
        return self::$main ??= new self([
            'WEBHOOK_ALLOW_PRIVATE' => 'true',
            'RATE_LIMIT_PER_MINUTE' => '100000',
        ], true);
    }

    /** Another server with its own settings and data (e.g. a tiny rate limit). */
    public static function with(array $env): self
    {
        return new self($env, false);
    }

    public static function root(): string
    {
        return dirname(__DIR__, 4);
    }

    /** @return array<string, string> */
    private function fullEnv(): array
    {
        $env = getenv();
        return array_merge($env, [
            'DATA_DIR' => $this->dataDir,
            'HOST' => '127.0.0.1',
            'PORT' => (string) $this->port,
            'LOG_LEVEL' => 'warn',
        ], $this->env);
    }

    public static function freePort(): int
    {
        $socket = stream_socket_server('tcp://127.0.0.1:0');
        if ($socket === false) {
            throw new \RuntimeException('no free port');
        }
        $name = (string) stream_socket_get_name($socket, false);
        fclose($socket);
        return (int) substr($name, strrpos($name, ':') + 1);
    }

    /**
     * Runs the `lightbox` command and answers its stdout.
     *
     * @param array<string, string> $env
     * @param list<string> $args
     */
    private static function cli(array $env, array $args, string $stdin = ''): string
    {
        $cmd = array_merge([self::node(), 'bin/lightbox.js'], $args);
        $io = [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']];
        $proc = proc_open($cmd, $io, $pipes, self::root(), $env);
        if (!is_resource($proc)) {
            throw new \RuntimeException('cannot run the lightbox command');
        }
        fwrite($pipes[0], $stdin);
        fclose($pipes[0]);
        $out = (string) stream_get_contents($pipes[1]);
        $err = (string) stream_get_contents($pipes[2]);
        if (proc_close($proc) !== 0) {
            throw new \RuntimeException('lightbox ' . implode(' ', $args) . " failed:\n" . $err);
        }
        return $out;
    }

    private static function node(): string
    {
        $node = getenv('NODE');
        return is_string($node) && $node !== '' ? $node : 'node';
    }

    private function start(): void
    {
        $log = $this->dataDir . '/server.log';
        $this->process = proc_open(
            [self::node(), 'bin/lightbox.js', 'serve'],
            [0 => ['file', '/dev/null', 'r'], 1 => ['file', $log, 'a'], 2 => ['file', $log, 'a']],
            $pipes,
            self::root(),
            $this->fullEnv()
        ) ?: null;
        $deadline = microtime(true) + 60;
        while (microtime(true) < $deadline) {
            $status = proc_get_status($this->process);
            if (!$status['running']) {
                throw new \RuntimeException("the server stopped at start:\n" . file_get_contents($log));
            }
            $ch = curl_init($this->baseUrl . '/healthz');
            curl_setopt_array($ch, [CURLOPT_RETURNTRANSFER => true, CURLOPT_TIMEOUT => 2]);
            curl_exec($ch);
            if (curl_getinfo($ch, CURLINFO_RESPONSE_CODE) === 200) {
                register_shutdown_function([$this, 'stop']);
                return;
            }
            usleep(200_000);
        }
        $this->stop();
        throw new \RuntimeException("the server did not start in 60 s:\n" . file_get_contents($log));
    }

    public function stop(): void
    {
        if ($this->process !== null) {
            proc_terminate($this->process, 15);
            $deadline = microtime(true) + 15;
            while (proc_get_status($this->process)['running'] && microtime(true) < $deadline) {
                usleep(100_000);
            }
            if (proc_get_status($this->process)['running']) {
                proc_terminate($this->process, 9);
            }
            proc_close($this->process);
            $this->process = null;
        }
        if (is_dir($this->dataDir)) {
            exec('rm -rf ' . escapeshellarg($this->dataDir));
        }
    }
}
