import { defineRoutes } from '../rest/route.ts';

export const apiKeyRoutes = defineRoutes([
  {
    operationId: 'getMe',
    method: 'GET',
    path: '/me',
    tag: 'Identity',
    summary: 'The calling API key, its service account, the workspace and the limits',
    description:
      'Needs only a valid key, whatever its scopes. Answers what the key may do (`apiKey.scopes`), whom its changes are attributed to ' +
      '(`serviceUser`), its workspace, and the limits that apply to it (`limits`: requests per minute, webhook subscriptions).',
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
