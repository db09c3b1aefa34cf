// `npm start` (scripts/start.sh), the Dockerfile and docker-compose.yml give each part the same heap limit.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { heapLimits } from '../../bench/production.ts';
import { fromRoot } from '../../src/paths.ts';

const heapOf = (command: string | undefined) => Number(/--max-old-space-size=(\d+)/.exec(command ?? '')?.[1]);

describe('heap limits per part', () => {
  const limits = heapLimits();

  it('the Dockerfile runs the API with the API limit', () => {
    const cmd = /^CMD (.*)$/m.exec(fs.readFileSync(fromRoot('Dockerfile'), 'utf8'))?.[1];
    expect(cmd).toContain('"api"');
    expect(heapOf(cmd)).toBe(limits.api);
  });

  it('docker-compose.yml runs the API and the worker with theirs', () => {
    const compose = fs.readFileSync(fromRoot('docker-compose.yml'), 'utf8');
    const commandOf = (part: string) => new RegExp(`command: \\[.*"dist/main\\.js", "${part}"\\]`).exec(compose)?.[0];
    expect(heapOf(commandOf('api'))).toBe(limits.api);
    expect(heapOf(commandOf('worker'))).toBe(limits.worker);
  });

  it('the all-in-one process has room for both parts', () => {
    expect(limits.all).toBeGreaterThanOrEqual(Math.max(limits.api, limits.worker));
  });
});
