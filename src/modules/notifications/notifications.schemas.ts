import { Type, type Static } from '@sinclair/typebox';
import { IdParam, ListOf, NullableTimestamp, PageQuery, StringEnum, Timestamp } from '../../http/schemas.ts';

export const NOTIFICATION_STATUSES = ['queued', 'sent', 'failed', 'cancelled'] as const;

export const Notification = Type.Object(
  {
    id: Type.String({ description: '`ntf_` followed by an opaque string.' }),
    client_id: Type.String({ description: 'Kept after the client is deleted.' }),
    listing_id: Type.String(),
    to: Type.String({ description: 'The recipient address.' }),
    status: StringEnum(NOTIFICATION_STATUSES, {
      description:
        '`queued` until delivered (`sent`), refused by the mail server or out of retries (`failed`), or no longer wanted (`cancelled`).',
    }),
    attempts: Type.Integer({ minimum: 0 }),
    last_error: Type.Union([Type.String(), Type.Null()], { description: 'The last failure, e.g. an SMTP reply.' }),
    created_at: Timestamp(),
    sent_at: NullableTimestamp(),
  },
  { title: 'Notification' },
);
export type NotificationType = Static<typeof Notification>;

export const NotificationList = ListOf(Notification, 'NotificationList');

export const NotificationListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(StringEnum(NOTIFICATION_STATUSES, { description: 'Only notifications in this status.' })),
});
export type NotificationListQueryType = Static<typeof NotificationListQuery>;

export const NotificationParams = Type.Object({ id: IdParam('Notification id (`ntf_...`).') });
