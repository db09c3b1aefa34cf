import { defineRoutes } from '../rest/route.ts';

export const webhookRoutes = defineRoutes([]);
