<?php

declare(strict_types=1);

namespace Lightbox\Service;

/**
 * `$lb->products`: every operation is generated (see Generated\AbstractProductService).
 */
class ProductService extends Generated\AbstractProductService
{
}
