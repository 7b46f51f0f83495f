'use strict';
// New Selection (docs/api.md §25 and §28): a selection sent at any link to a gallery, the client's
// (`client_link.selection_submitted`, whose object is the gallery) or a share link's
// (`share_link.selection_submitted`, whose object is the share link). A Zap maps fields from one
// shape, so both become one item that says which kind of link it was.
//
// Selection Submitted (the client's link only, its item the gallery) came first. Widening it would
// change what its Zaps receive, so it stays as it was, hidden: Zaps that use it keep working, new
// Zaps pick New Selection (Zapier's way to replace a trigger: a new key, the old one hidden).
const { hookTrigger } = require('../lib/hook-trigger');
const { apiUrl } = require('../lib/api');
const f = require('../lib/fields');
const samples = require('../lib/samples');

const CLIENT_EVENT = 'client_link.selection_submitted';
const SHARE_EVENT = 'share_link.selection_submitted';

/** The gallery's address, or null when the gallery is gone by now (its links went with it). */
const addressOf = (z, bundle, galleryId, cache) => {
  if (!cache.has(galleryId)) {
    cache.set(
      galleryId,
      z
        .request({ url: apiUrl(bundle, `/v1/listings/${encodeURIComponent(galleryId)}`), skipThrowForStatus: true })
        .then((response) => {
          if (response.status === 404) return null;
          response.throwForStatus();
          return response.data.address;
        }),
    );
  }
  return cache.get(galleryId);
};

/** One item for either event; `memo` keeps one gallery lookup per gallery within a call. */
const selectionItem = async (z, bundle, event, memo) => {
  const object = event.data.object;
  const share = event.type === SHARE_EVENT;
  const link = share ? object : object.client_link || {};
  return {
    // Each send is a new selection (a client may change theirs and send it again).
    id: event.id,
    link_kind: share ? 'share_link' : 'client_link',
    link_id: share ? object.id : null,
    link_label: share ? object.label : 'Client link',
    link_url: link.url || null,
    link_email: share ? object.email : null,
    favorites_count: link.favorites_count === undefined ? null : link.favorites_count,
    selection_min: link.selection_min === undefined ? null : link.selection_min,
    selection_max: link.selection_max === undefined ? null : link.selection_max,
    gallery_id: share ? object.listing_id : object.id,
    gallery_address: share ? await addressOf(z, bundle, object.listing_id, memo) : object.address,
    client_id: share ? null : object.client_id,
    event_id: event.id,
    event_type: event.type,
    event_created_at: event.created_at,
  };
};

const newSelection = hookTrigger({
  key: 'new_selection',
  noun: 'Selection',
  label: 'New Selection',
  description:
    "Triggers when someone sends their favorite photos from a gallery, at the client's link or at any share link.",
  events: [SHARE_EVENT, CLIENT_EVENT],
  item: selectionItem,
  outputFields: f.selectionOutput,
  sample: samples.selection,
});

module.exports = { newSelection, CLIENT_EVENT, SHARE_EVENT };
