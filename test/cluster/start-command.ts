// What `npm start -- <role>` finally executes, read by running it with a `node` on PATH that
// records its arguments instead of starting the service when they name dist/main.js (any other
// node, such as the build step's, runs for real). So docker-compose.yml and the Dockerfile are
// compared with what production's start command does, however package.json composes it.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from '../../src/paths.ts';

export interface StartCommand {
  /** argv with `node` first, as a compose `command` writes it. */
  argv: string[];
  /** MALLOC_ARENA_MAX as the process gets it ('' when unset). */
  mallocArenaMax: string;
}

export function startCommand(role: 'api' | 'worker'): StartCommand {
  const dir = mkdtempSync(path.join(tmpdir(), 'start-command-'));
  const capture = path.join(dir, 'captured');
  try {
    const shim = path.join(dir, 'node');
    writeFileSync(shim, [
      '#!/bin/sh',
      'for a in "$@"; do',
      '  case "$a" in dist/main.js|*/dist/main.js)',
      `    { echo "\${MALLOC_ARENA_MAX-}"; printf '%s\\n' "$@"; } > '${capture}'; exit 0;;`,
      '  esac',
      'done',
      `exec '${process.execPath}' "$@"`,
      '',
    ].join('\n'));
    chmodSync(shim, 0o755);
    // --ignore-scripts skips prestart (the settings UI's build), which does not change the command.
    // Should the service start after all, it gets an empty data directory and no port clash.
    const { DATABASE_URL: _, ...env } = process.env;
    execFileSync('npm', ['start', '--ignore-scripts', '--', role], {
      cwd: repoRoot,
      env: { ...env, PATH: `${dir}:${process.env.PATH}`, DATA_DIR: path.join(dir, 'data'), PORT: '0' },
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 150_000,
    });
    if (!existsSync(capture)) throw new Error(`npm start -- ${role} ran no node … dist/main.js`);
    const [mallocArenaMax, ...args] = readFileSync(capture, 'utf8').trimEnd().split('\n');
    return { argv: ['node', ...args], mallocArenaMax: mallocArenaMax ?? '' };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
