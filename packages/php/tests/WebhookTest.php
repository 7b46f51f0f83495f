<?php

declare(strict_types=1);

namespace Lightbox\Tests;

use Lightbox\Exception\WebhookVerificationException;
use Lightbox\Tests\Support\LiveTestCase;
use Lightbox\Tests\Support\Process;
use Lightbox\Tests\Support\TestServer;
use Lightbox\Webhook;

final class WebhookTest extends LiveTestCase
{
    public function testARealDeliveryVerifies(): void
    {
        $dir = sys_get_temp_dir() . '/lightbox-receiver-' . bin2hex(random_bytes(4));
        mkdir($dir);
        $port = TestServer::freePort();
        putenv('RECEIVER_DIR=' . $dir);
        $receiver = new Process(
            [PHP_BINARY, '-S', '127.0.0.1:' . $port, __DIR__ . '/Support/receiver.php'],
            $port,
            $dir . '/server'
        );
        putenv('RECEIVER_DIR');
        $lb = self::client();
        try {
            $endpoint = $lb->webhookEndpoints->create([
                'url' => 'http://127.0.0.1:' . $port . '/hook',
                'events' => ['listing.created'],
            ]);
            self::assertStringStartsWith('whsec_', $endpoint->secret);
            $gallery = $lb->listings->create(['address' => '9 Webhook Way']);

            $deadline = microtime(true) + 30;
            $files = [];
            while ($files === [] && microtime(true) < $deadline) {
                usleep(200_000);
                $files = glob($dir . '/*.json') ?: [];
            }
            self::assertNotEmpty($files, 'no delivery arrived in 30 s');
            $delivery = json_decode((string) file_get_contents($files[0]), true);

            $event = Webhook::verify($delivery['body'], $delivery['headers'], $endpoint->secret);
            self::assertSame('listing.created', $event->type);
            self::assertSame($gallery->id, $event->data->object->id);

            // Header names in any case, as $_SERVER spells them, or as lists (PSR-7).
            $upper = [];
            $server = [];
            $lists = [];
            foreach ($delivery['headers'] as $name => $value) {
                $upper[strtoupper($name)] = $value;
                $server['HTTP_' . strtoupper(str_replace('-', '_', $name))] = $value;
                $lists[strtolower(str_replace('-', '_', $name))] = [$value]; // as WP_REST_Request::get_headers()
            }
            self::assertSame($event->id, Webhook::verify($delivery['body'], $upper, $endpoint->secret)->id);
            self::assertSame($event->id, Webhook::verify($delivery['body'], $server, $endpoint->secret)->id);
            self::assertSame($event->id, $lb->webhooks->verify($delivery['body'], $lists, $endpoint->secret)->id);

            $tampered = str_replace('9 Webhook Way', '9 Webhook Wax', $delivery['body']);
            try {
                Webhook::verify($tampered, $delivery['headers'], $endpoint->secret);
                self::fail('a changed body verified');
            } catch (WebhookVerificationException $e) {
                self::assertSame('no matching signature', $e->getMessage());
            }
            $rotated = $lb->webhookEndpoints->rotateSecret($endpoint->id);
            $this->expectException(WebhookVerificationException::class);
            Webhook::verify($delivery['body'], $delivery['headers'], $rotated->secret);
        } finally {
            $receiver->stop();
            exec('rm -rf ' . escapeshellarg($dir));
        }
    }

    public function testEndpointsAndDeliveries(): void
    {
        $lb = self::client();
        $endpoint = $lb->webhookEndpoints->create(['url' => 'http://127.0.0.1:9/none', 'description' => 'nowhere']);
        self::assertSame('nowhere', $lb->webhookEndpoints->retrieve($endpoint->id)->description);
        $delivery = $lb->webhookEndpoints->test($endpoint->id);
        self::assertStringStartsWith('whd_', $delivery->id);
        $deliveries = $lb->webhookEndpoints->allDeliveries($endpoint->id);
        self::assertSame($delivery->id, $deliveries->data[0]->id);
        self::assertSame($delivery->id, $lb->webhookEndpoints->retryDelivery($endpoint->id, $delivery->id)->id);
        self::assertFalse($lb->webhookEndpoints->update($endpoint->id, ['enabled' => false])->enabled);
        self::assertGreaterThanOrEqual(1, $lb->webhookEndpoints->all()->pagination->total);
        self::assertNull($lb->webhookEndpoints->delete($endpoint->id));
    }

    public function testTimestampsTooFarOffAreRefused(): void
    {
        $secret = 'whsec_' . base64_encode('0123456789abcdef');
        $body = '{"id":"evt_1","type":"listing.created","created_at":"2026-01-01T00:00:00.000Z","data":{"object":{}}}';
        $ts = 1_700_000_000;
        $sig = base64_encode(hash_hmac('sha256', "msg_1.{$ts}.{$body}", '0123456789abcdef', true));
        $headers = ['Webhook-Id' => 'msg_1', 'Webhook-Timestamp' => (string) $ts, 'Webhook-Signature' => "v1,{$sig}"];
        self::assertSame('evt_1', Webhook::verify($body, $headers, $secret, 300, $ts + 10)->id);
        $this->expectException(WebhookVerificationException::class);
        Webhook::verify($body, $headers, $secret, 300, $ts + 301);
    }
}
