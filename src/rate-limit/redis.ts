// The Redis connection that holds rate-limit counters when REDIS_URL is set, so that several
// API instances share one count. Opened on first use, so scripts and the CLI never connect.
import { Redis } from 'ioredis';
import { config } from '../config.ts';
import { logger } from '../logger.ts';

export function connectRedis(url: string): Redis {
  // One retry per command: while Redis is away, limiters fall back quickly instead of queueing.
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  client.on('error', (err) => logger.warn({ err }, 'rate-limit Redis connection error'));
  return client;
}

let shared: Redis | undefined;

/** The process's connection, or undefined when REDIS_URL is unset (counters stay in process). */
export function sharedRedis(): Redis | undefined {
  if (!config.redisUrl) return undefined;
  return (shared ??= connectRedis(config.redisUrl));
}
