// The dev server's process as a child of ours: its log lines read without keeping us alive, and
// a watchdog that ends it when we die without running exit hooks (signal, SIGKILL, crash).
import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';

/** Hands `onLine` each non-empty line the child writes, on stdout and stderr. */
export function forwardLines(child: ChildProcess, onLine: (line: string) => void) {
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    // Read always (a full pipe would block the server) but never keep our event loop alive.
    (stream as Socket).unref();
    let buffered = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) onLine(line);
    });
  }
}

// A tiny shell that blocks reading a pipe from us; the pipe closes when we die in any way,
// and then it terminates the server (escalating to SIGKILL after 10 s).
export function startWatchdog(pid: number): ChildProcess {
  const script =
    'read -r _; kill -TERM "$1" 2>/dev/null || exit 0; i=0; ' +
    'while kill -0 "$1" 2>/dev/null && [ "$i" -lt 50 ]; do sleep 0.2; i=$((i+1)); done; ' +
    'kill -KILL "$1" 2>/dev/null; exit 0';
  const watchdog = spawn('/bin/sh', ['-c', script, 'temporal-dev-server-watchdog', String(pid)], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  watchdog.on('error', () => undefined);
  watchdog.unref();
  (watchdog.stdin as unknown as Socket | null)?.unref();
  return watchdog;
}

