import { Type, type Static } from '@sinclair/typebox';
import {
  Id,
  IdParam,
  Int32,
  ListOf,
  NullableId,
  NullableText,
  NullableTimestamp,
  PageQuery,
  StringEnum,
  Timestamp,
} from '../../http/schemas.ts';
import { NOTIFICATION_STATUSES } from '../../db/schema.ts';
import { MAX_EMAIL_LENGTH } from '../../lib/email-address.ts';

export const Notification = Type.Object(
  {
    id: Id('ntf', '`ntf_` followed by an opaque string.'),
    client_id: NullableId('cli', "Kept after the client is deleted; null for a share link's email."),
    share_link_id: NullableId('shl', 'The share link this email carries, or null: the assignment email to the client.'),
    listing_id: Id('lst'),
    to: Type.String({ maxLength: MAX_EMAIL_LENGTH, format: 'email', description: 'The recipient address.' }),
    status: StringEnum(NOTIFICATION_STATUSES, {
      title: 'NotificationStatus',
      description:
        '`queued` until delivered (`sent`), refused by the mail server or out of retries (`failed`), or no longer wanted (`cancelled`).',
    }),
    attempts: Int32({ minimum: 0 }),
    last_error: NullableText(500, 'The last failure, e.g. an SMTP reply.'),
    created_at: Timestamp(),
    sent_at: NullableTimestamp(),
  },
  { title: 'Notification', additionalProperties: false },
);
export type NotificationType = Static<typeof Notification>;

export const NotificationList = ListOf(Notification, 'NotificationList');

export const NotificationListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(StringEnum(NOTIFICATION_STATUSES, { description: 'Only notifications in this status.' })),
});
export type NotificationListQueryType = Static<typeof NotificationListQuery>;

export const NotificationParams = Type.Object({ id: IdParam('Notification id (`ntf_...`).') });
