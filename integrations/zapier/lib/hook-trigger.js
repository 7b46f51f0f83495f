'use strict';
// Instant triggers by REST hooks (docs/api.md §24): turning a Zap on creates a Lightbox webhook
// endpoint for the Zap's URL and the trigger's event types; turning it off deletes it. Lightbox
// disables an endpoint whose receiver answers 410 Gone (docs/api.md §22), which is what Zapier answers
// for a Zap that no longer exists, so a forgotten subscription stops costing deliveries.
const { apiUrl } = require('./api');
const { verify } = require('./signature');
const { eventOutput } = require('./fields');
const samples = require('./samples');

/** What a Zap step receives: the object as of the event, plus which event it was. */
const toItem = (event) => ({
  ...event.data.object,
  event_id: event.id,
  event_type: event.type,
  event_created_at: event.created_at,
});

/**
 * `item` turns one event into its Zap item (by default `toItem`); a trigger whose events carry
 * different objects (New Selection) makes them one shape there, and may ask Lightbox for more,
 * keeping what it asked in `memo` (one Map per perform or performList call).
 * `hidden` keeps a superseded trigger working in the Zaps that use it while new Zaps cannot pick it.
 */
const hookTrigger = ({
  key,
  noun,
  label,
  description,
  events,
  outputFields,
  sample,
  item = async (z, bundle, event) => toItem(event),
  hidden = false,
}) => {
  const performSubscribe = async (z, bundle) => {
    const response = await z.request({
      url: apiUrl(bundle, '/v1/webhook_endpoints'),
      method: 'POST',
      body: {
        url: bundle.targetUrl,
        events,
        description: `Zapier: ${label}${bundle.meta && bundle.meta.zap ? ` (Zap ${bundle.meta.zap.id})` : ''}`,
      },
    });
    // Kept by Zapier as bundle.subscribeData: the endpoint's id (to delete it) and its signing secret.
    return response.data;
  };

  const performUnsubscribe = async (z, bundle) => {
    const id = bundle.subscribeData && bundle.subscribeData.id;
    if (!id) return {};
    const response = await z.request({
      url: apiUrl(bundle, `/v1/webhook_endpoints/${encodeURIComponent(id)}`),
      method: 'DELETE',
      skipThrowForStatus: true,
    });
    // Already gone (deleted in the dashboard, say) is what we wanted anyway.
    if (response.status !== 204 && response.status !== 404) response.throwForStatus();
    return {};
  };

  const perform = async (z, bundle) => {
    const secret = bundle.subscribeData && bundle.subscribeData.secret;
    const raw = bundle.rawRequest;
    if (secret && raw && typeof raw.content === 'string') {
      // No time window: Zapier re-runs perform on the stored request when a user replays a held or
      // failed run, hours or days later. The signature still proves Lightbox sent these bytes.
      const problem = verify(secret, raw.headers, raw.content, { tolerance: null });
      if (problem)
        throw new z.errors.Error(`Refused a delivery that Lightbox did not sign: ${problem}.`, 'bad_signature', 401);
    }
    const event = bundle.cleanedRequest;
    // webhook.test ("Send test event" in the dashboard) and any other type are not this trigger's.
    if (!event || !event.data || !events.includes(event.type)) return [];
    return [await item(z, bundle, event, new Map())];
  };

  const performList = async (z, bundle) => {
    const items = [];
    const memo = new Map();
    for (const type of events) {
      const response = await z.request({
        url: apiUrl(bundle, '/v1/events'),
        params: { type, limit: 10 },
      });
      for (const event of response.data.data) items.push(await item(z, bundle, event, memo));
    }
    items.sort((a, b) => (a.event_created_at < b.event_created_at ? 1 : -1));
    return items;
  };

  return {
    key,
    noun,
    display: hidden ? { label, description, hidden } : { label, description },
    operation: {
      type: 'hook',
      performSubscribe,
      performUnsubscribe,
      perform,
      performList,
      sample: { ...sample, ...samples.event(events[0]) },
      outputFields: [...outputFields, ...eventOutput],
    },
  };
};

module.exports = { hookTrigger, toItem };
