<?php

declare(strict_types=1);

namespace Lightbox\Tests;

use Lightbox\Collection;
use Lightbox\Exception\ConflictException;
use Lightbox\Exception\NotFoundException;
use Lightbox\Exception\ValidationException;
use Lightbox\LightboxObject;
use Lightbox\Tests\Support\LiveTestCase;

/** docs/api.md §29: every product and invoice method; every amount an integer in minor units. */
final class InvoiceTest extends LiveTestCase
{
    public function testProducts(): void
    {
        $lb = self::client();
        $product = $lb->products->create(['name' => 'Twilight photos', 'unit_amount' => 15000]);
        self::assertInstanceOf(LightboxObject::class, $product);
        self::assertStringStartsWith('prd_', $product->id);
        self::assertSame(201, $product->getLastResponse()?->status);
        $repriced = $lb->products->update($product->id, ['unit_amount' => 12500, 'description' => 'At dusk']);
        self::assertSame([12500, 'At dusk'], [$repriced->unit_amount, $repriced->description]);
        self::assertSame(12500, $lb->products->retrieve($product->id)->unit_amount);
        $ids = [];
        foreach ($lb->products->all(['limit' => 2])->autoPagingIterator() as $p) {
            $ids[] = $p->id;
        }
        self::assertContains($product->id, $ids);
        self::assertNull($lb->products->delete($product->id));
        $this->expectException(NotFoundException::class);
        $lb->products->retrieve($product->id);
    }

    public function testInvoicesFromDraftToPaidWithPaymentsAndPdf(): void
    {
        $lb = self::client();
        $product = $lb->products->create(['name' => 'Drone film', 'unit_amount' => 12500]);
        $gallery = $lb->listings->create(['address' => '9 Invoice Street']);
        try {
            $lb->invoices->create(['listing_id' => $gallery->id, 'items' => [['product_id' => $product->id]]]);
            self::fail('a gallery without a client was invoiced');
        } catch (ConflictException $e) {
            self::assertSame(409, $e->getHttpStatus());
        }
        $email = 'bea-' . bin2hex(random_bytes(3)) . '@example.com';
        $client = $lb->clients->create(['name' => 'Bea', 'email' => $email]);
        $lb->clients->assign($client->id, $gallery->id, ['notify' => false]);
        $draft = $lb->invoices->create([
            'listing_id' => $gallery->id,
            'items' => [
                ['product_id' => $product->id, 'quantity' => 2],
                ['description' => 'Floor plan', 'unit_amount' => 9999],
            ],
            'discount' => 999,
            'tax_rate_bps' => 825,
        ]);
        self::assertStringStartsWith('ivc_', $draft->id);
        self::assertSame('Drone film', $draft->items[0]->description);
        // 25000 + 9999 - 999 = 34000; tax 34000 x 8.25 % = 2805.
        self::assertSame(
            ['draft', null, $client->id, 34999, 2805, 36805],
            [$draft->status, $draft->number, $draft->client_id, $draft->subtotal, $draft->tax, $draft->total]
        );
        $noted = $lb->invoices->update($draft->id, ['note' => 'Thank you', 'discount' => 0]);
        self::assertSame(['Thank you', 2887, 37886], [$noted->note, $noted->tax, $noted->total]);
        self::assertSame('Thank you', $lb->invoices->retrieve($draft->id)->note);

        $open = $lb->invoices->issue($draft->id);
        self::assertSame('open', $open->status);
        self::assertMatchesRegularExpression('/^INV-\d{4,}$/', $open->number);
        try {
            $lb->invoices->delete($draft->id);
            self::fail('an open invoice was deleted');
        } catch (ConflictException) {
        }
        $found = $lb->invoices->all(['listing_id' => $gallery->id, 'status' => 'open']);
        self::assertInstanceOf(Collection::class, $found);
        self::assertSame([$draft->id], array_map(fn ($i) => $i->id, $found->data));
        self::assertCount(0, $lb->invoices->all(['client_id' => $client->id, 'status' => 'paid']));

        $pdf = $lb->invoices->downloadPdf($draft->id);
        self::assertSame(200, $pdf->status);
        self::assertSame('application/pdf', $pdf->header('content-type'));
        self::assertStringStartsWith('%PDF-', $pdf->body);
        $sink = (string) tempnam(sys_get_temp_dir(), 'pdf');
        $lb->invoices->downloadPdf($draft->id, ['sink' => $sink]);
        // Each rendering has its own /ID: the same length, not the same bytes.
        self::assertStringStartsWith('%PDF-', (string) file_get_contents($sink));
        self::assertSame(strlen($pdf->body), filesize($sink));
        unlink($sink);

        try {
            $lb->invoices->createPayment($draft->id, ['amount' => 37887, 'method' => 'cash']);
            self::fail('more than the amount due was recorded');
        } catch (ValidationException) {
        }
        $part = $lb->invoices->createPayment(
            $draft->id,
            ['amount' => 7886, 'method' => 'check', 'reference' => 'No. 12']
        );
        self::assertStringStartsWith('pay_', $part->id);
        self::assertSame(201, $part->getLastResponse()?->status);
        self::assertSame(30000, $lb->invoices->retrieve($draft->id)->amount_due);
        $rest = $lb->invoices->createPayment($draft->id, ['amount' => 30000, 'method' => 'bank_transfer']);
        $paid = $lb->invoices->retrieve($draft->id);
        self::assertSame(['paid', 37886, 0], [$paid->status, $paid->amount_paid, $paid->amount_due]);
        $payments = [];
        foreach ($lb->invoices->allPayments($draft->id)->autoPagingIterator() as $p) {
            $payments[] = $p->id;
        }
        sort($payments);
        $expected = [$part->id, $rest->id];
        sort($expected);
        self::assertSame($expected, $payments);
        try {
            $lb->invoices->void($draft->id);
            self::fail('a paid invoice was voided');
        } catch (ConflictException) {
        }

        $second = $lb->invoices->create([
            'listing_id' => $gallery->id,
            'items' => [['description' => 'Twilight', 'unit_amount' => 5000]],
        ]);
        self::assertSame('void', $lb->invoices->void($lb->invoices->issue($second->id)->id)->status);
        $spare = $lb->invoices->create([
            'listing_id' => $gallery->id,
            'items' => [['description' => 'Spare', 'unit_amount' => 1]],
        ]);
        self::assertNull($lb->invoices->delete($spare->id));
        $this->expectException(NotFoundException::class);
        $lb->invoices->retrieve($spare->id);
    }
}
