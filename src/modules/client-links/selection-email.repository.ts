// What the studio's selection email reads (docs/api.md §25, §28), for either kind of link.
import type { Executor } from '../../db/executor.ts';

/**
 * What the studio's selection email says (docs/api.md §25, §28): the studio, who sent it (the
 * client, or the share link's label and address), the gallery's address, the note, and the marked
 * visible photos in position order with the comments on visible photos. Undefined when the gallery
 * or the link is gone (a client link: its client too, or the gallery went to another).
 */
export async function selectionForEmail(db: Executor, accountId: string, subjectId: string) {
  const share = subjectId.startsWith('shl_');
  const link = await db
    .selectFrom('gallery_links')
    .innerJoin('listings', (join) =>
      join.onRef('listings.id', '=', 'gallery_links.listing_id').on('listings.account_id', '=', accountId),
    )
    .leftJoin('clients', (join) =>
      join.onRef('clients.id', '=', 'gallery_links.client_id').on('clients.account_id', '=', accountId),
    )
    .select([
      'gallery_links.id',
      'gallery_links.kind',
      'gallery_links.client_id',
      'gallery_links.label',
      'gallery_links.email',
      'listings.client_id as listing_client_id',
      'listings.address',
      'clients.name as client_name',
      'clients.email as client_email',
      'gallery_links.favorites_note',
      'gallery_links.favorites_submitted_at',
    ])
    .where('gallery_links.account_id', '=', accountId)
    .where(share ? 'gallery_links.id' : 'gallery_links.listing_id', '=', subjectId)
    .where('gallery_links.kind', '=', share ? 'share' : 'client')
    .executeTakeFirst();
  if (link === undefined || link.favorites_submitted_at === null) return undefined;
  if (!share && (link.client_name === null || link.listing_client_id !== link.client_id)) return undefined;
  const [account, files, comments] = await Promise.all([
    db
      .selectFrom('accounts')
      .select(['name', 'email', 'live_account_id'])
      .where('id', '=', accountId)
      .executeTakeFirst(),
    db
      .selectFrom('gallery_link_favorites')
      .innerJoin('media', (join) =>
        join.onRef('media.id', '=', 'gallery_link_favorites.media_id').on('media.account_id', '=', accountId),
      )
      .select(['media.filename', 'media.caption'])
      .where('gallery_link_favorites.account_id', '=', accountId)
      .where('gallery_link_favorites.link_id', '=', link.id)
      .where('media.hidden', '=', 0)
      .orderBy('media.position')
      .execute(),
    db
      .selectFrom('gallery_link_comments')
      .innerJoin('media', (join) =>
        join.onRef('media.id', '=', 'gallery_link_comments.media_id').on('media.account_id', '=', accountId),
      )
      .select(['media.filename', 'gallery_link_comments.text'])
      .where('gallery_link_comments.account_id', '=', accountId)
      .where('gallery_link_comments.link_id', '=', link.id)
      .where('media.hidden', '=', 0)
      .orderBy('media.position')
      .execute(),
  ]);
  if (account === undefined) return undefined;
  return {
    address: link.address,
    // A share link's sender is its label (and its recipient, when it has one).
    sender_name: share ? (link.label ?? 'A share link') : (link.client_name ?? ''),
    sender_email: share ? link.email : link.client_email,
    share_link_id: share ? link.id : null,
    favorites_note: link.favorites_note,
    favorites_submitted_at: link.favorites_submitted_at,
    account,
    files,
    comments,
  };
}
