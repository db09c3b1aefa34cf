import { defineRoutes } from '../rest/route.ts';

export const articleRoutes = defineRoutes([]);
