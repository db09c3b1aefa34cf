// The compose implementation the tests validate docker-compose.yml with: Debian's docker-compose
// package (Compose 1.29, which implements the Compose specification's `config` without an engine).
// Installed here with apt-get as root on Debian when missing, until provisioning installs it.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

function installed(): boolean {
  try {
    execFileSync('docker-compose', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The docker-compose command, installing Debian's package when it is missing and we may. */
export function dockerCompose(): string {
  if (installed()) return 'docker-compose';
  if (process.getuid?.() !== 0 || !existsSync('/etc/debian_version')) {
    throw new Error("docker-compose is not installed: install Debian's docker-compose package (or any Compose implementation as `docker-compose`)");
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { env, stdio: 'ignore' });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'docker-compose'], { env, stdio: 'ignore' });
  return 'docker-compose';
}
