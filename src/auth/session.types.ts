// GraphQL types, queries and mutations of this domain.
import { builder } from '../graphql/builder.ts';

export {};
void builder;
