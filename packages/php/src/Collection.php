<?php

declare(strict_types=1);

namespace Lightbox;

use Lightbox\HttpClient\Response;

/**
 * One page of a list: `$page->data` (LightboxObjects), `$page->pagination`, and `foreach` over
 * this page's items. autoPagingIterator() walks every matching item, page after page.
 */
class Collection extends LightboxObject
{
    /** @var null|\Closure(array<string, mixed>): Collection */
    private ?\Closure $fetch = null;
    /** @var array<string, mixed> */
    private array $params = [];

    /**
     * @param array<string, mixed> $values
     * @param array<string, mixed> $params the query this page was asked with
     * @param \Closure(array<string, mixed>): Collection $fetch asks for another page of the same list
     */
    public static function page(array $values, ?Response $response, array $params, \Closure $fetch): self
    {
        $page = new static($values, $response);
        $page->params = $params;
        $page->fetch = $fetch;
        return $page;
    }

    /** @return \ArrayIterator<int, mixed> this page's items */
    public function getIterator(): \Iterator
    {
        return new \ArrayIterator($this->values['data'] ?? []);
    }

    public function count(): int
    {
        return count($this->values['data'] ?? []);
    }

    public function isEmpty(): bool
    {
        return $this->count() === 0;
    }

    /** @return array<string, mixed> the query this page was asked with */
    public function getFilters(): array
    {
        return $this->params;
    }

    /**
     * The next page, or null after the last one.
     *
     * Follows `pagination.next_cursor` (API section 19): the same filters and sort with `cursor`,
     * never `page` beside it. TRANSITIONAL: a server that does not send `next_cursor` yet (before
     * section 19) is paged by number, page + 1, while `page * limit < total`. Remove that branch
     * once every supported server sends cursors.
     */
    public function nextPage(): ?self
    {
        if ($this->fetch === null || $this->isEmpty()) {
            return null;
        }
        $pagination = $this->values['pagination'] ?? null;
        $p = $pagination instanceof LightboxObject ? $pagination->toArray() : [];
        if (array_key_exists('next_cursor', $p)) {
            if (!is_string($p['next_cursor']) || $p['next_cursor'] === '') {
                return null;
            }
            $params = $this->params;
            unset($params['page']);
            $params['cursor'] = $p['next_cursor'];
            return ($this->fetch)($params);
        }
        // Transitional: page numbers, while the server sends no next_cursor.
        $page = (int) ($p['page'] ?? $this->params['page'] ?? 1);
        $limit = (int) ($p['limit'] ?? 0);
        $total = (int) ($p['total'] ?? 0);
        if ($limit <= 0 || $page * $limit >= $total) {
            return null;
        }
        $params = $this->params;
        $params['page'] = $page + 1;
        return ($this->fetch)($params);
    }

    /**
     * Every item of the list from this page on, fetching each next page when the loop reaches it:
     * `foreach ($lb->listings->all(['limit' => 100])->autoPagingIterator() as $gallery)`.
     *
     * @return \Generator<int, mixed>
     */
    public function autoPagingIterator(): \Generator
    {
        $page = $this;
        while ($page !== null) {
            foreach ($page as $item) {
                yield $item;
            }
            $page = $page->nextPage();
        }
    }
}
