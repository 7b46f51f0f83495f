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
}
