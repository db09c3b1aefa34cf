// Structured JSON logs on stderr (pino).
import { pino } from 'pino';
import { config } from './config.ts';

export const logger = pino({ level: config.logLevel, base: undefined }, pino.destination(2));
