// The programs that scripts/provision.sh provided for this run, as global-setup.ts put them in the
// environment. A missing one fails the test that needs it, with the provisioning's sentence
// saying what to install: never a silent skip.
import { provisionedPath } from '../../scripts/provision-env.ts';

export type ProvisionedTool =
  | 'TEMPORAL_CLI_PATH'
  | 'TEMPORAL_TEST_SERVER_PATH'
  | 'SCHEMATHESIS_DIR'
  | 'OPENAPI_PYTHON_CLIENT_DIR'
  | 'GO_PATH'
  | 'GO_TOOLS_DIR'
  | 'PROMTOOL_PATH'
  | 'CHROMIUM_PATH'
  | 'REDIS_SERVER_PATH'
  | 'DOCKER_COMPOSE_PATH';

export function provisioned(tool: ProvisionedTool): string {
  return provisionedPath(tool);
}
