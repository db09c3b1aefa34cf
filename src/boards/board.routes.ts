import { defineRoutes } from '../rest/route.ts';

export const boardRoutes = defineRoutes([]);
