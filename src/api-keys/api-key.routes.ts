import { defineRoutes } from '../rest/route.ts';

export const apiKeyRoutes = defineRoutes([
  {
    operationId: 'getMe',
    method: 'GET',
    path: '/me',
    tag: 'Identity',
    summary: 'The calling API key, its service account, the workspace and the limits',
    operation: /* GraphQL */ `
      query getMe {
        me {
          apiKey { id name prefix scopes }
          serviceUser { id userName fullName roleId }
          workspace { domain name }
          limits { requestsPerMinute maxWebhookSubscriptions }
        }
      }`,
  },
]);
