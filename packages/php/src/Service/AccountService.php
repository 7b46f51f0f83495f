<?php

declare(strict_types=1);

namespace Lightbox\Service;

/**
 * `$lb->account`: every operation is generated (see Generated\AbstractAccountService).
 */
class AccountService extends Generated\AbstractAccountService
{
}
