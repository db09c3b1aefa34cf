// GraphQL: the caller's in-app notifications (a person's, or an API key's service account's).
import { queryFromInfo } from '@pothos/plugin-prisma';
import { builder } from '../graphql/builder.ts';
import { notificationService } from './notification.service.ts';
import { UNREAD_COUNT_CAP } from './notification.repository.ts';

const Notification = builder.prismaObject('Notification', {
  fields: (t) => ({
    id: t.exposeInt('id'),
    kind: t.exposeString('kind', { description: 'What it is about, e.g. `webhook.paused`, `ticket.created`' }),
    title: t.exposeString('title'),
    body: t.exposeString('body'),
    link: t.exposeString('link', { nullable: true, description: 'Where it points in the settings UI' }),
    data: t.expose('data', { type: 'JSON' }),
    read: t.boolean({ select: { readAt: true }, resolve: (n) => n.readAt !== null }),
    readAt: t.expose('readAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const NotificationTopic = builder.enumType('NotificationTopic', {
  values: {
    webhooks: { description: 'About webhook subscriptions (`webhook.*`: paused, disabled)' },
    tickets: { description: 'About tickets (`ticket.*`)' },
  } as const,
});
const TOPIC_NOTE = 'Only notices of this topic; absent or null: every notice';

builder.queryField('notifications', (t) =>
  t.connection({
    type: Notification,
    description: 'The caller’s notifications, newest first (for an API key: its service account’s)',
    authScopes: { authenticated: true },
    args: {
      unreadOnly: t.arg.boolean({ required: false, defaultValue: false }),
      topic: t.arg({ type: NotificationTopic, required: false, description: TOPIC_NOTE }),
    },
    resolve: (_root, { unreadOnly, topic, ...args }, ctx, info) =>
      notificationService.list(ctx.principal!, unreadOnly ?? false, args, queryFromInfo({ context: ctx, info, path: ['edges', 'node'] }), topic ?? null),
  }),
);

builder.mutationField('markNotificationRead', (t) =>
  t.prismaField({
    type: 'Notification',
    description: 'Marks one of the caller’s notifications read; marking it again keeps the first time',
    authScopes: { authenticated: true },
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, { id }, ctx) => notificationService.markRead(ctx.principal!, id, query),
  }),
);

builder.queryField('unreadNotificationCount', (t) =>
  t.int({
    description: `The caller’s unread notifications (those it may read), counted up to ${UNREAD_COUNT_CAP}: ${UNREAD_COUNT_CAP} means at least that many`,
    authScopes: { authenticated: true },
    args: { topic: t.arg({ type: NotificationTopic, required: false, description: TOPIC_NOTE }) },
    resolve: (_root, { topic }, ctx) => notificationService.unreadCount(ctx.principal!, topic ?? null),
  }),
);

builder.mutationField('markAllNotificationsRead', (t) =>
  t.int({
    description: 'Marks the caller’s own unread notifications read (those it may read), and answers how many it marked; others’ are never touched',
    authScopes: { authenticated: true },
    args: {
      topic: t.arg({ type: NotificationTopic, required: false, description: TOPIC_NOTE }),
      throughId: t.arg.int({
        required: false,
        description: 'Only notices up to this id: the newest one the person saw, so that one arriving meanwhile stays unread; absent: all',
      }),
    },
    resolve: (_root, { topic, throughId }, ctx) => notificationService.markAllRead(ctx.principal!, topic ?? null, throughId ?? null),
  }),
);
