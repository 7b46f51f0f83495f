import { Type, type Static } from '@sinclair/typebox';
import {
  Id,
  IdParam,
  Int32,
  ListOf,
  NullableString,
  NullableText,
  NullableTimestamp,
  PageQuery,
  SinceQuery,
  StringEnum,
  Timestamp,
} from '../../http/schemas.ts';
import { DELIVERY_STATUSES, EVENT_TYPES } from '../../db/schema.ts';
import { MAX_WEBHOOK_URL_LENGTH } from '../../outbound/address.ts';

const EventTypeSchema = StringEnum(EVENT_TYPES, {
  title: 'EventType',
  description: 'What happened (docs/api.md §15).',
});

const EndpointEvents = Type.Array(StringEnum([...EVENT_TYPES, '*'] as const, { title: 'EventSubscription' }), {
  minItems: 1,
  maxItems: EVENT_TYPES.length,
  uniqueItems: true,
  description: 'The event types to send, or `["*"]` alone for all of them (the default).',
});

const fields = {
  url: Type.String({
    minLength: 1,
    maxLength: MAX_WEBHOOK_URL_LENGTH,
    format: 'uri',
    pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\x00-\\x20\\x7f]+$',
    description:
      'An absolute http or https URL. Private, loopback, link-local and other internal addresses are refused ' +
      '(unless WEBHOOK_ALLOW_PRIVATE=true), at create and again at every delivery.',
  }),
  description: NullableString({ maxLength: 500, description: 'For your own reference.' }),
};

export const WebhookEndpoint = Type.Object(
  {
    id: Id('whe', '`whe_` followed by an opaque string.'),
    url: Type.String({ maxLength: MAX_WEBHOOK_URL_LENGTH }),
    events: Type.Array(Type.String({ maxLength: 64 }), { maxItems: EVENT_TYPES.length }),
    description: NullableText(500),
    enabled: Type.Boolean({ description: 'A disabled endpoint is sent nothing; its pending retries wait.' }),
    disabled_reason: Type.Union([Type.Literal('manual'), Type.Literal('gone'), Type.Null()], {
      description:
        'Why the endpoint is disabled: null while enabled, `manual` when disabled by PATCH or the dashboard, ' +
        '`gone` when a receiver answered 410 Gone to a delivery. Enabling it again sets it back to null.',
    }),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'WebhookEndpoint', additionalProperties: false },
);
export type WebhookEndpointType = Static<typeof WebhookEndpoint>;

export const WebhookEndpointWithSecret = Type.Object(
  {
    ...WebhookEndpoint.properties,
    secret: Type.String({
      maxLength: 100,
      pattern: '^whsec_[A-Za-z0-9+/=]+$',
      description: 'The signing secret (Standard Webhooks format). Shown only here: keep it.',
    }),
  },
  { title: 'WebhookEndpointWithSecret', additionalProperties: false },
);
export type WebhookEndpointWithSecretType = Static<typeof WebhookEndpointWithSecret>;

export const WebhookEndpointList = ListOf(WebhookEndpoint, 'WebhookEndpointList');

export const EndpointListQuery = Type.Object({ ...PageQuery });

export const WebhookEndpointCreateBody = Type.Object(
  {
    url: fields.url,
    events: Type.Optional(EndpointEvents),
    description: Type.Optional(fields.description),
  },
  { additionalProperties: false, title: 'WebhookEndpointCreate' },
);
export type WebhookEndpointCreateInput = Static<typeof WebhookEndpointCreateBody>;

export const WebhookEndpointUpdateBody = Type.Object(
  {
    url: Type.Optional(fields.url),
    events: Type.Optional(EndpointEvents),
    description: Type.Optional(fields.description),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1, title: 'WebhookEndpointUpdate' },
);
export type WebhookEndpointUpdateInput = Static<typeof WebhookEndpointUpdateBody>;

export const WebhookEndpointParams = Type.Object({ id: IdParam('Webhook endpoint id (`whe_...`).') });
export const WebhookDeliveryParams = Type.Object({
  id: IdParam('Webhook endpoint id (`whe_...`).'),
  delivery_id: IdParam('Delivery id (`whd_...`).'),
});

export const Event = Type.Object(
  {
    id: Id('evt', '`evt_` followed by an opaque string: also the `webhook-id` of its deliveries.'),
    type: EventTypeSchema,
    created_at: Timestamp(),
    livemode: Type.Boolean({ description: 'false for an event of test data (docs/api.md §20).' }),
    data: Type.Object(
      {
        object: Type.Object(
          {},
          {
            additionalProperties: true,
            description:
              'The resource as its API read returned it at the change (a gallery, media, client or notification ' +
              'object), or `{"id"}` for a deletion.',
          },
        ),
      },
      { additionalProperties: false },
    ),
  },
  { title: 'Event', additionalProperties: false },
);
export type EventObjectType = Static<typeof Event>;

export const EventList = ListOf(Event, 'EventList');

export const EventListQuery = Type.Object({
  ...PageQuery,
  type: Type.Optional(StringEnum(EVENT_TYPES, { description: 'Only events of this type.' })),
  created_since: SinceQuery('created_at'),
});
export type EventListQueryType = Static<typeof EventListQuery>;

export const EventParams = Type.Object({ id: IdParam('Event id (`evt_...`).') });

export const WebhookDelivery = Type.Object(
  {
    id: Id('whd', '`whd_` followed by an opaque string.'),
    event_id: Id('evt'),
    event_type: Type.String({ maxLength: 64, description: 'An event type, or `webhook.test`.' }),
    status: StringEnum(DELIVERY_STATUSES, {
      title: 'WebhookDeliveryStatus',
      description: '`pending` until a 2xx (`succeeded`) or out of retries (`failed`).',
    }),
    attempts: Int32({ minimum: 0, description: 'Finished attempts.' }),
    response_status: Type.Union([Int32({ minimum: 100, maximum: 599 }), Type.Null()], {
      description: 'The HTTP status of the last attempt, or null (no response).',
    }),
    last_error: NullableText(1000, 'Why the last attempt failed, or null.'),
    next_attempt_at: NullableTimestamp('When it is tried next, while pending.'),
    created_at: Timestamp(),
    delivered_at: NullableTimestamp('When a 2xx came back.'),
  },
  { title: 'WebhookDelivery', additionalProperties: false },
);
export type WebhookDeliveryType = Static<typeof WebhookDelivery>;

export const WebhookDeliveryList = ListOf(WebhookDelivery, 'WebhookDeliveryList');

export const DeliveryListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(StringEnum(DELIVERY_STATUSES, { description: 'Only deliveries in this status.' })),
});
export type DeliveryListQueryType = Static<typeof DeliveryListQuery>;
