<?php

declare(strict_types=1);

namespace Lightbox\Tests;

use Lightbox\Tests\Support\LiveTestCase;

/**
 * The two ways in: `require 'init.php'` without Composer, and Composer with a path repository
 * (no Packagist: the package needs nothing but PHP's extensions), each running the quick start
 * against the real server.
 */
final class ExamplesTest extends LiveTestCase
{
    /** @return array{0: int, 1: string} */
    private static function exec(array $command, ?string $cwd = null): array
    {
        $env = array_merge(getenv(), [
            'LIGHTBOX_API_KEY' => self::server()->apiKey,
            'LIGHTBOX_BASE_URL' => self::server()->baseUrl,
            'COMPOSER_DISABLE_NETWORK' => '1',
        ]);
        $proc = proc_open($command, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, $cwd, $env);
        $out = (string) stream_get_contents($pipes[1]) . (string) stream_get_contents($pipes[2]);
        return [proc_close($proc), $out];
    }

    private static function assertQuickstart(string $out): void
    {
        self::assertMatchesRegularExpression('/^gallery lst_\S+ at 42 Quickstart Lane$/m', $out);
        self::assertStringContainsString('uploaded photo image/png', $out);
        self::assertMatchesRegularExpression('/^active galleries: [1-9]\d*$/m', $out);
        self::assertMatchesRegularExpression('/^not found: not_found 404 request \S+$/m', $out);
        self::assertStringContainsString('refused: address, beds', $out);
    }

    public function testWithoutComposerThroughInitPhp(): void
    {
        [$code, $out] = self::exec([PHP_BINARY, dirname(__DIR__) . '/examples/quickstart.php']);
        self::assertSame(0, $code, $out);
        self::assertQuickstart($out);
        self::assertStringContainsString('loaded from ' . dirname(__DIR__) . '/src/LightboxClient.php', $out);
    }

    public function testWithComposerFromAPathRepository(): void
    {
        $composer = trim((string) shell_exec('command -v composer'));
        if ($composer === '') {
            self::markTestSkipped('composer is not installed');
        }
        $project = sys_get_temp_dir() . '/lightbox-composer-' . bin2hex(random_bytes(4));
        mkdir($project);
        try {
            file_put_contents($project . '/composer.json', json_encode([
                'name' => 'studio/site',
                'require' => ['lightbox/lightbox-php' => '*@dev'],
                'repositories' => [
                    ['type' => 'path', 'url' => dirname(__DIR__), 'options' => ['symlink' => false]],
                    ['packagist.org' => false],
                ],
            ], JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES));
            [$code, $out] = self::exec(
                [$composer, 'install', '--no-interaction', '--no-progress', '--no-dev'],
                $project
            );
            self::assertSame(0, $code, $out);
            file_put_contents($project . '/run.php', "<?php\nrequire __DIR__ . '/vendor/autoload.php';\n"
                . 'require ' . var_export(dirname(__DIR__) . '/examples/quickstart.php', true) . ";\n");
            [$code, $out] = self::exec([PHP_BINARY, $project . '/run.php'], $project);
            self::assertSame(0, $code, $out);
            self::assertQuickstart($out);
            self::assertStringContainsString(
                'loaded from ' . $project . '/vendor/lightbox/lightbox-php/src/LightboxClient.php',
                $out
            );
        } finally {
            exec('rm -rf ' . escapeshellarg($project));
        }
    }
}
