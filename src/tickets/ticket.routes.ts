import { defineRoutes } from '../rest/route.ts';

export const ticketRoutes = defineRoutes([]);
