// Structured JSON logs on stderr (pino).
import { pino } from 'pino';
import { config } from './config.ts';
import { onFirstUse } from './lazy.ts';

// Made on first use, as its level comes from the configuration.
export const logger: pino.Logger = onFirstUse(() => pino({ level: config.logLevel, base: undefined }, pino.destination(2)));
