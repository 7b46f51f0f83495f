import type { App } from '../../http/types.ts';
import { Answer, errorResponses, READ_ERRORS } from '../../http/schemas.ts';
import { Notification, NotificationList, NotificationListQuery, NotificationParams } from './notifications.schemas.ts';
import type { NotificationsService } from './notifications.service.ts';

const tags = ['Notifications'];

export function registerNotificationsRoutes(
  app: App,
  { notifications }: { notifications: NotificationsService },
): void {
  app.get(
    '/notifications',
    {
      schema: {
        operationId: 'listNotifications',
        summary: 'List notification emails and their delivery status, newest first',
        tags,
        querystring: NotificationListQuery,
        response: {
          200: Answer(NotificationList, 'A page of notification emails, newest first.'),
          ...errorResponses(400, 401),
        },
      },
    },
    (request) => notifications.list(request.auth.accountId, request.query),
  );

  app.get(
    '/notifications/:id',
    {
      schema: {
        operationId: 'getNotification',
        summary: 'Get one notification email and its delivery status',
        tags,
        params: NotificationParams,
        response: { 200: Answer(Notification, 'The notification email.'), ...errorResponses(...READ_ERRORS) },
      },
    },
    (request) => notifications.get(request.auth.accountId, request.params.id),
  );
}
