<?php

declare(strict_types=1);

namespace Lightbox\Service;

use Lightbox\Exception\ApiErrorException;
use Lightbox\Exception\InvalidArgumentException;
use Lightbox\HttpClient\Response;

/**
 * `$lb->invoices`: invoices of a gallery's client, their payments and their PDF (docs/api.md §29).
 * Every amount is an integer in the account currency's minor unit (2500 is 25.00). The JSON
 * operations are generated (see Generated\AbstractInvoiceService); the PDF download is written here.
 */
class InvoiceService extends Generated\AbstractInvoiceService
{
    /**
     * GET /v1/invoices/:id/pdf (operationId `getInvoicePdf`): the invoice as a PDF.
     *
     * Options: `sink` (a path or an open stream: the bytes are written there as they arrive, not
     * kept in memory), `if_none_match` (304), and the usual request options. Answers the Response
     * (`status`, `headers`, and `body` without a sink).
     *
     * @param array<string, mixed> $opts
     * @throws ApiErrorException
     */
    public function downloadPdf(string $id, array $opts = []): Response
    {
        $headers = ['accept' => 'application/pdf'];
        if (isset($opts['if_none_match'])) {
            $headers['if-none-match'] = (string) $opts['if_none_match'];
        }
        $close = null;
        if (isset($opts['sink']) && is_string($opts['sink'])) {
            $close = fopen($opts['sink'], 'wb');
            if ($close === false) {
                throw new InvalidArgumentException("cannot write {$opts['sink']}");
            }
            $opts['sink'] = $close;
        }
        try {
            $path = '/v1/invoices/' . self::segment($id) . '/pdf';
            return $this->requestor()->send('GET', $path, [], null, $opts, [304], $headers);
        } finally {
            if ($close !== null) {
                fclose($close);
            }
        }
    }
}
