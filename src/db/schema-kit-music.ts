// docs/api.md §32: the accounts' music track for the listing kit's videos (kit.music.ts), beside schema.ts.
import type { Generated } from 'kysely';

export interface AccountKitMusicColumns {
  /** The storage key of the studio's music track; null makes the kit's videos silent. */
  kit_music_key: Generated<string | null>;
}
