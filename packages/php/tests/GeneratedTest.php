<?php

declare(strict_types=1);

namespace Lightbox\Tests;

use Lightbox\LightboxClient;
use Lightbox\Service\Generated\Operations;
use Lightbox\Service\ServiceFactory;
use PHPUnit\Framework\TestCase;

final class GeneratedTest extends TestCase
{
    public function testEveryOperationOfTheDocumentHasAMethod(): void
    {
        $document = json_decode(
            (string) file_get_contents(dirname(__DIR__, 2) . '/client/openapi.json'),
            true,
            512,
            JSON_THROW_ON_ERROR
        );
        $ids = [];
        foreach ($document['paths'] as $path => $item) {
            foreach ($item as $op) {
                if (str_starts_with($path, '/v1/') && is_array($op) && isset($op['operationId'])) {
                    $ids[] = $op['operationId'];
                }
            }
        }
        sort($ids);
        $covered = array_keys(Operations::ALL);
        sort($covered);
        self::assertSame($ids, $covered);
        foreach (Operations::ALL as $id => [$service, $method]) {
            $class = $service === 'client' ? LightboxClient::class : ServiceFactory::CLASSES[$service];
            self::assertTrue(method_exists($class, $method), "{$id}: {$class}::{$method}()");
        }
    }

    public function testTheGeneratedFilesMatchTheDocument(): void
    {
        exec(escapeshellarg(PHP_BINARY) . ' ' . escapeshellarg(dirname(__DIR__) . '/bin/generate.php')
            . ' --check 2>&1', $output, $code);
        self::assertSame(0, $code, implode("\n", $output));
    }

    public function testTheCheckFailsWhenAnOperationHasNoMethod(): void
    {
        $document = json_decode(
            (string) file_get_contents(dirname(__DIR__, 2) . '/client/openapi.json'),
            true,
            512,
            JSON_THROW_ON_ERROR
        );
        $document['paths']['/v1/listings/{id}/favorites'] = ['get' => [
            'operationId' => 'getFavorites',
            'responses' => ['200' => ['description' => 'ok']],
        ]];
        $file = tempnam(sys_get_temp_dir(), 'openapi');
        file_put_contents((string) $file, json_encode($document));
        exec(escapeshellarg(PHP_BINARY) . ' ' . escapeshellarg(dirname(__DIR__) . '/bin/generate.php')
            . ' --check --openapi=' . escapeshellarg((string) $file) . ' 2>&1', $output, $code);
        unlink((string) $file);
        self::assertSame(1, $code);
        self::assertStringContainsString('out of date', implode("\n", $output));
    }

    /**
     * A copy of the package whose hand-written MediaService lost a method (renamed), and one whose
     * generated service lost one: --check fails on each, naming what is missing or stale.
     */
    public function testTheCheckFailsWhenAHandWrittenOrGeneratedMethodIsMissing(): void
    {
        $cases = [
            'src/Service/MediaService.php' => [
                'public function downloadVariant(',
                'operation getMediaVariant (get /v1/listings/{id}/media/{media_id}/variants/{name}) has no method:'
                    . ' Lightbox\Service\MediaService::downloadVariant()',
            ],
            'src/Service/Generated/AbstractClientService.php' => [
                'public function notify(',
                'src/Service/Generated/AbstractClientService.php is out of date with the OpenAPI document',
            ],
        ];
        $package = dirname(__DIR__);
        foreach ($cases as $file => [$method, $expected]) {
            $copy = sys_get_temp_dir() . '/lightbox-php-copy-' . bin2hex(random_bytes(4));
            mkdir($copy);
            try {
                exec('cp -R ' . escapeshellarg($package . '/src') . ' ' . escapeshellarg($package . '/bin') . ' '
                    . escapeshellarg($package . '/init.php') . ' ' . escapeshellarg($copy), $out, $code);
                self::assertSame(0, $code);
                $text = (string) file_get_contents($copy . '/' . $file);
                self::assertStringContainsString($method, $text);
                $renamed = str_replace($method, str_replace('(', 'Gone(', $method), $text);
                file_put_contents($copy . '/' . $file, $renamed);
                $output = [];
                $document = dirname($package) . '/client/openapi.json';
                exec(escapeshellarg(PHP_BINARY) . ' ' . escapeshellarg($copy . '/bin/generate.php') . ' --check'
                    . ' --openapi=' . escapeshellarg($document) . ' 2>&1', $output, $code);
                self::assertSame(1, $code, implode("\n", $output));
                self::assertStringContainsString($expected, implode("\n", $output));
            } finally {
                exec('rm -rf ' . escapeshellarg($copy));
            }
        }
    }
}
