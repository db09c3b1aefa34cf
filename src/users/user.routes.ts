import { defineRoutes } from '../rest/route.ts';

export const userRoutes = defineRoutes([]);
