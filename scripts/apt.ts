// OS packages that scripts need (PostgreSQL, redis-server), installed the way .ci/run does:
// with apt-get as root on Debian; elsewhere one sentence says what to install.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export function aptInstall(packages: string[], label: string): void {
  const canInstall = process.getuid?.() === 0 && existsSync('/etc/debian_version');
  if (!canInstall) throw new Error(`${label} is not installed: install ${packages.join(' ')} with your package manager`);
  console.error(`installing ${label} from the OS's packages (apt-get install ${packages.join(' ')})`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], { env, stdio: ['ignore', 'ignore', 'inherit'] });
}
