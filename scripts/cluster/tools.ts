// The Temporal server, temporal-sql-tool and the Temporal Web server, built once from the Go
// module proxy into .tools/ (no container images here), with the files their images carry beside
// them: the UI's config template (the server's config template and schema are embedded in its
// binaries). A warm check is `go version -m` on each binary (its module and version).
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fromRoot } from '../../src/paths.ts';
import { versions } from './topology.ts';

export interface GoTool {
  label: string;
  module: string;
  version: string;
  /** The package to `go install`, inside the module. */
  pkg: string;
  home: string;
  /** Files of the module copied under `home`, as the image has them under /etc/temporal (or the UI's root). */
  files: string[];
  /** What it costs the first time (printed before building). */
  cost: string;
}

const serverHome = fromRoot('.tools', 'temporal-server');
const uiHome = fromRoot('.tools', 'temporal-ui');

export const temporalServer: GoTool = {
  label: `Temporal server ${versions.temporalServer}`,
  module: 'go.temporal.io/server',
  version: `v${versions.temporalServer}`,
  pkg: 'cmd/server',
  home: serverHome,
  // Its config template and PostgreSQL schema are embedded in the binaries (`start` without --config; `--schema-name`).
  files: [],
  cost: 'about 10 CPU-minutes, 27 minutes on a busy 2-core machine; a 211 MB binary',
};

export const temporalSqlTool: GoTool = {
  label: `temporal-sql-tool ${versions.temporalServer}`,
  module: 'go.temporal.io/server',
  version: `v${versions.temporalServer}`,
  pkg: 'cmd/tools/sql',
  home: serverHome,
  files: [],
  cost: 'about a CPU-minute once the server is built',
};

export const temporalUi: GoTool = {
  label: `Temporal Web ${versions.temporalUi}`,
  module: 'github.com/temporalio/ui-server/v2',
  version: `v${versions.temporalUi}`,
  pkg: 'cmd/server',
  home: uiHome,
  files: ['config/docker.yaml'],
  cost: 'a few CPU-minutes (the UI assets are embedded: a large binary)',
};

/** `go install` names the binary after the package's last element. */
export const binaryOf = (tool: GoTool) => path.join(tool.home, 'bin', path.basename(tool.pkg));

function goAvailable(): boolean {
  try {
    execFileSync('go', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function builtFrom(tool: GoTool): boolean {
  const bin = binaryOf(tool);
  if (!existsSync(bin)) return false;
  if (!goAvailable()) return true; // cannot check without Go; what is there is what was built
  try {
    const info = execFileSync('go', ['version', '-m', bin], { encoding: 'utf8' });
    return info.split('\n').some((line) => {
      const [kind, mod, version] = line.trim().split(/\s+/);
      return (kind === 'mod' || kind === 'dep') && mod === tool.module && version === tool.version;
    });
  } catch {
    return false;
  }
}

async function goInstall(tool: GoTool, log: (line: string) => void): Promise<void> {
  if (!goAvailable()) {
    throw new Error(`${tool.label} is not in ${tool.home} and there is no Go toolchain to build it (install golang, 1.24 or later)`);
  }
  log(`building ${tool.label} with go install (${tool.cost}); later runs reuse .tools/ ...`);
  mkdirSync(path.join(tool.home, 'bin'), { recursive: true });
  const target = `${tool.module}/${tool.pkg}@${tool.version}`;
  const child = spawn('go', ['install', '-v', target], {
    env: { ...process.env, GOBIN: path.join(tool.home, 'bin') },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // `-v` names each package as it is compiled: one progress line every 100 of them.
  const started = Date.now();
  let packages = 0;
  const tail: string[] = [];
  createInterface({ input: child.stderr }).on('line', (line) => {
    tail.push(line);
    if (tail.length > 20) tail.shift();
    if (!line.startsWith('go: ') && ++packages % 100 === 0) {
      log(`  ${packages} packages compiled, ${Math.round((Date.now() - started) / 1000)} s (${line})`);
    }
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`go install ${target} failed:\n${tail.join('\n')}`);
  log(`  built ${binaryOf(tool)} in ${Math.round((Date.now() - started) / 1000)} s`);
}

function copyModuleFiles(tool: GoTool): void {
  const missing = tool.files.filter((f) => !existsSync(path.join(tool.home, f)));
  if (missing.length === 0) return;
  const { Dir: dir } = JSON.parse(execFileSync('go', ['mod', 'download', '-json', `${tool.module}@${tool.version}`], { encoding: 'utf8' })) as { Dir: string };
  for (const file of missing) cpSync(path.join(dir, file), path.join(tool.home, file), { recursive: true });
}

/** Builds what is missing (printing progress) and returns the binary's path. */
export async function ensureTool(tool: GoTool, log: (line: string) => void): Promise<string> {
  if (!builtFrom(tool)) await goInstall(tool, log);
  copyModuleFiles(tool);
  return binaryOf(tool);
}
