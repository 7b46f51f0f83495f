<?php

declare(strict_types=1);

namespace Lightbox;

use Lightbox\HttpClient\Response;

/**
 * An object the API answered, with property access (`$gallery->id`, `$gallery->client_link->views`)
 * and array access (`$gallery['id']`). Nested objects are LightboxObjects, lists are PHP arrays.
 * Read-only: change a resource through its service (`$lb->listings->update($id, [...])`).
 *
 * @implements \ArrayAccess<string, mixed>
 * @implements \IteratorAggregate<string, mixed>
 */
class LightboxObject implements \ArrayAccess, \IteratorAggregate, \Countable, \JsonSerializable
{
    /** @var array<string, mixed> */
    protected array $values = [];
    protected ?Response $lastResponse = null;

    /**
     * @param array<string, mixed> $values decoded JSON
     */
    final public function __construct(array $values = [], ?Response $response = null)
    {
        foreach ($values as $key => $value) {
            $this->values[(string) $key] = self::convert($value);
        }
        $this->lastResponse = $response;
    }

    /**
     * A decoded JSON value with every object made a LightboxObject (or a Collection when it is a page).
     */
    public static function convert(mixed $value): mixed
    {
        if (!is_array($value)) {
            return $value;
        }
        if (array_is_list($value)) {
            return array_map([self::class, 'convert'], $value);
        }
        return new LightboxObject($value);
    }

    /** The HTTP response this object came from (status, headers, `X-Request-Id`, ETag). */
    public function getLastResponse(): ?Response
    {
        return $this->lastResponse;
    }

    public function __get(string $name): mixed
    {
        if (!array_key_exists($name, $this->values)) {
            $class = static::class;
            trigger_error("Lightbox notice: undefined property {$name} of this {$class}", E_USER_NOTICE);
            return null;
        }
        return $this->values[$name];
    }

    public function __isset(string $name): bool
    {
        return isset($this->values[$name]);
    }

    public function __set(string $name, mixed $value): void
    {
        throw new \LogicException("{$name} is read-only: change a resource through its service");
    }

    public function __unset(string $name): void
    {
        throw new \LogicException("{$name} is read-only: change a resource through its service");
    }

    public function offsetExists(mixed $offset): bool
    {
        return array_key_exists((string) $offset, $this->values);
    }

    public function offsetGet(mixed $offset): mixed
    {
        return $this->values[(string) $offset] ?? null;
    }

    public function offsetSet(mixed $offset, mixed $value): void
    {
        throw new \LogicException("{$offset} is read-only: change a resource through its service");
    }

    public function offsetUnset(mixed $offset): void
    {
        throw new \LogicException("{$offset} is read-only: change a resource through its service");
    }

    /** @return \ArrayIterator<string, mixed> */
    public function getIterator(): \Iterator
    {
        return new \ArrayIterator($this->values);
    }

    public function count(): int
    {
        return count($this->values);
    }

    /** @return list<string> */
    public function keys(): array
    {
        return array_keys($this->values);
    }

    /** @return array<string, mixed> the object as plain arrays, as the API sent it */
    public function toArray(): array
    {
        return self::unwrap($this->values);
    }

    private static function unwrap(mixed $value): mixed
    {
        if ($value instanceof LightboxObject) {
            return $value->toArray();
        }
        return is_array($value) ? array_map([self::class, 'unwrap'], $value) : $value;
    }

    public function jsonSerialize(): mixed
    {
        return $this->toArray();
    }

    public function __toString(): string
    {
        return static::class . ' JSON: ' . json_encode($this, JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES);
    }
}
