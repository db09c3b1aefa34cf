// The embedded database's one-process lock: a live holder refuses others with its name and pid;
// a holder killed with SIGKILL, or a pid now running another program, does not block forever.
import { afterAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { claimDataDir, DataDirBusy, lockFile } from '../../src/admin/data-dir-lock.ts';

const root = path.resolve(import.meta.dirname, '../..');
const dirs: string[] = [];
const children: ChildProcess[] = [];
const newDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ticketing-lock-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const lockModule = path.join(root, 'src/admin/data-dir-lock.ts');

/** Another process that claims `dir` and keeps running until killed. */
async function holder(dir: string) {
  const code = `import { claimDataDir } from ${JSON.stringify(lockModule)}; claimDataDir(${JSON.stringify(dir)}, 'npm start'); console.log('held'); setInterval(() => {}, 1000);`;
  // node itself with tsx's loader (the tsx command would put its own process in between).
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', code], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d) => String(d).includes('held') && resolve());
    child.once('exit', (c) => reject(new Error(`holder exited with ${c}`)));
  });
  return child;
}

describe('the data directory lock', () => {
  it('refuses a second claim while the holder runs, naming it; SIGKILL of the holder frees the directory', async () => {
    const dir = newDir();
    const child = await holder(dir);
    let refusal: unknown;
    try {
      claimDataDir(dir, 'npm run cli');
    } catch (err) {
      refusal = err;
    }
    expect(refusal).toBeInstanceOf(DataDirBusy);
    expect((refusal as Error).message).toBe(`The embedded database in ${dir} is in use by \`npm start\` (pid ${child.pid}); it serves one process at a time.`);

    await new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGKILL');
    });
    const release = claimDataDir(dir, 'npm run cli');
    expect(JSON.parse(fs.readFileSync(lockFile(dir), 'utf8'))).toMatchObject({ pid: process.pid, command: 'npm run cli' });
    expect(() => claimDataDir(dir, 'npm run migrate')).toThrow(DataDirBusy);
    release();
    expect(fs.existsSync(lockFile(dir))).toBe(false);
  });

  it('takes over a lock whose pid now runs another program, or that is not a lock at all', () => {
    const dir = newDir();
    // A pid that runs (this one's parent), recorded with another start time: reused after a crash.
    fs.writeFileSync(lockFile(dir), JSON.stringify({ pid: process.ppid, start: '1', command: 'npm start' }));
    claimDataDir(dir, 'npm run cli')();
    fs.writeFileSync(lockFile(dir), 'garbage');
    claimDataDir(dir, 'npm run cli')();
    // A pid that no longer runs.
    const gone = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).stdout.trim();
    fs.writeFileSync(lockFile(dir), JSON.stringify({ pid: Number(gone), command: 'npm start' }));
    claimDataDir(dir, 'npm run cli')();
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
