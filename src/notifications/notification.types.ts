// GraphQL: the caller's in-app notifications (a person's, or an API key's service account's).
import { queryFromInfo } from '@pothos/plugin-prisma';
import { builder } from '../graphql/builder.ts';
import { notificationService } from './notification.service.ts';

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

builder.queryField('notifications', (t) =>
  t.connection({
    type: Notification,
    description: 'The caller’s notifications, newest first (for an API key: its service account’s)',
    authScopes: { authenticated: true },
    args: { unreadOnly: t.arg.boolean({ required: false, defaultValue: false }) },
    resolve: (_root, { unreadOnly, ...args }, ctx, info) =>
      notificationService.list(ctx.principal!, unreadOnly ?? false, args, queryFromInfo({ context: ctx, info, path: ['edges', 'node'] })),
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
