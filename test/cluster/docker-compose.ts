// The compose implementation the tests validate docker-compose.yml with: Debian's docker-compose
// package (Compose 1.29, which implements the Compose specification's `config` without an
// engine), installed by scripts/provision.sh like the other tools the tests need.
import { provisioned } from '../support/tools.ts';

export const dockerCompose = (): string => provisioned('DOCKER_COMPOSE_PATH');
