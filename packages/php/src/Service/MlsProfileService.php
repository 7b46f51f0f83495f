<?php

declare(strict_types=1);

namespace Lightbox\Service;

/**
 * `$lb->mlsProfiles` (docs/api.md §31): every operation is generated (see
 * Generated\AbstractMlsProfileService). A gallery's compliance is `$lb->listings->compliance()`.
 */
class MlsProfileService extends Generated\AbstractMlsProfileService
{
}
