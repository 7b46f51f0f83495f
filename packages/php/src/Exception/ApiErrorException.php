<?php

declare(strict_types=1);

namespace Lightbox\Exception;

/**
 * The base of every error the API answers, and of failures before any answer.
 *
 * An error answer becomes the subclass of its `error.code` (NotFoundException for `not_found`,
 * ...), keeping the server's message, details and request id; a code this version does not know
 * becomes the subclass of its HTTP status, else an ApiErrorException with that code.
 */
class ApiErrorException extends \Exception implements ExceptionInterface
{
    private const BY_CODE = [
        'validation_error' => ValidationException::class,
        'invalid_json' => ValidationException::class,
        'headers_too_large' => ValidationException::class,
        'unauthorized' => AuthenticationException::class,
        'forbidden' => PermissionException::class,
        'not_found' => NotFoundException::class,
        'method_not_allowed' => MethodNotAllowedException::class,
        'request_timeout' => RequestTimeoutException::class,
        'conflict' => ConflictException::class,
        'precondition_failed' => PreconditionFailedException::class,
        'payload_too_large' => PayloadTooLargeException::class,
        'unsupported_media_type' => UnsupportedMediaTypeException::class,
        'range_not_satisfiable' => RangeNotSatisfiableException::class,
        'fetch_failed' => FetchFailedException::class,
        'rate_limited' => RateLimitException::class,
        'internal_error' => InternalServerException::class,
        'unavailable' => ServiceUnavailableException::class,
    ];

    private const BY_STATUS = [
        400 => ValidationException::class,
        401 => AuthenticationException::class,
        403 => PermissionException::class,
        404 => NotFoundException::class,
        405 => MethodNotAllowedException::class,
        408 => RequestTimeoutException::class,
        409 => ConflictException::class,
        412 => PreconditionFailedException::class,
        413 => PayloadTooLargeException::class,
        415 => UnsupportedMediaTypeException::class,
        416 => RangeNotSatisfiableException::class,
        422 => FetchFailedException::class,
        429 => RateLimitException::class,
        500 => InternalServerException::class,
        503 => ServiceUnavailableException::class,
    ];

    private ?int $httpStatus = null;
    private string $errorCode = '';
    /** @var list<array{field?: string, message?: string}> */
    private array $details = [];
    private ?string $requestId = null;
    /** @var array<string, string> */
    private array $httpHeaders = [];
    private ?string $httpBody = null;

    /**
     * @param list<array{field?: string, message?: string}> $details
     * @param array<string, string> $headers lower-cased names
     */
    public static function factory(
        string $message,
        ?int $httpStatus,
        string $errorCode,
        array $details = [],
        ?string $requestId = null,
        array $headers = [],
        ?string $httpBody = null,
        ?\Throwable $previous = null
    ): static {
        $e = new static($message, 0, $previous);
        $e->httpStatus = $httpStatus;
        $e->errorCode = $errorCode;
        $e->details = $details;
        $e->requestId = $requestId;
        $e->httpHeaders = $headers;
        $e->httpBody = $httpBody;
        return $e;
    }

    /**
     * The exception for an answer of status >= 400, from its body (which may not be JSON).
     *
     * @param array<string, string> $headers lower-cased names
     */
    public static function fromResponse(int $status, array $headers, string $body): self
    {
        $decoded = json_decode($body, true);
        $error = is_array($decoded) && isset($decoded['error']) && is_array($decoded['error'])
            ? $decoded['error'] : [];
        $code = isset($error['code']) && is_string($error['code']) ? $error['code'] : 'http_' . $status;
        $message = isset($error['message']) && is_string($error['message']) && $error['message'] !== ''
            ? $error['message']
            : 'HTTP ' . $status . ($body !== '' ? ': ' . substr($body, 0, 200) : '');
        $requestId = isset($error['request_id']) && is_string($error['request_id'])
            ? $error['request_id'] : ($headers['x-request-id'] ?? null);
        $details = isset($error['details']) && is_array($error['details']) ? array_values($error['details']) : [];
        $class = self::BY_CODE[$code] ?? self::BY_STATUS[$status]
            ?? ($status >= 500 ? InternalServerException::class : self::class);
        return $class::factory($message, $status, $code, $details, $requestId, $headers, $body);
    }

    /** The HTTP status, or null when no answer came (connection errors, timeouts, webhook checks). */
    public function getHttpStatus(): ?int
    {
        return $this->httpStatus;
    }

    /** The API's `error.code`, or `connection_error`, `timeout`, `webhook_verification_failed`. */
    public function getErrorCode(): string
    {
        return $this->errorCode;
    }

    /**
     * One entry per refused field on validation errors (`field` is a dotted path); empty otherwise.
     *
     * @return list<array{field?: string, message?: string}>
     */
    public function getDetails(): array
    {
        return $this->details;
    }

    /** The answer's `X-Request-Id` (`error.request_id`), to quote when asking for help. */
    public function getRequestId(): ?string
    {
        return $this->requestId;
    }

    /** @return array<string, string> the answer's headers, names lower-cased */
    public function getHttpHeaders(): array
    {
        return $this->httpHeaders;
    }

    public function getHttpBody(): ?string
    {
        return $this->httpBody;
    }
}
