// Imports every domain's types, then builds the schema.
import { builder } from './builder.ts';
import '../api-keys/api-key.types.ts';

export const schema = builder.toSchema({ sortSchema: true });
