// Amazon SQS and EventBridge as moto's server mode (PyPI, provisioned into .tools/moto) serves
// them: one server for both, any region and any access key. It keeps everything in memory: a
// restart of it starts empty.
import path from 'node:path';
import { provisionedPath } from '../provision-env.ts';
import type { BrokerKind } from './broker-process.ts';

export interface AwsAddress {
  endpoint: string;
  region: 'us-east-1';
  accessKeyId: string;
  secretAccessKey: string;
}

export const aws: BrokerKind<AwsAddress> = {
  ports: 1,
  prepare() {},
  launches(_dir, [port]) {
    const moto = provisionedPath('MOTO_DIR');
    return [{ command: 'python3', args: [path.join(moto, 'bin', 'moto_server'), '-H', '127.0.0.1', '-p', String(port)], env: { PYTHONPATH: moto } }];
  },
  address: ([port]) => ({ endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', accessKeyId: 'test', secretAccessKey: 'test' }),
  // moto's own API: answers once the server serves requests.
  async probe({ endpoint }) {
    const response = await fetch(`${endpoint}/moto-api/data.json`, { signal: AbortSignal.timeout(2000) });
    if (!response.ok) throw new Error(`moto answered ${response.status}`);
  },
};
