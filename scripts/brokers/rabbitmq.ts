// RabbitMQ 3.10 from Debian's package, as a node of our own: its own node name, ports, Mnesia and
// log folders and Erlang cookie (HOME), no plugins, none of /etc/rabbitmq. Erlang's port mapper
// (epmd) is ours too, on a port of its own (ERL_EPMD_PORT) and in a process group we stop: the
// node never starts one of its own (`-start_epmd false`), so no epmd outlives the run. guest/guest
// is RabbitMQ's default user, which may connect from loopback only.
import fs from 'node:fs';
import path from 'node:path';
import amqp from 'amqplib';
import { provisionedPath } from '../provision-env.ts';
import type { BrokerKind } from './broker-process.ts';

export interface RabbitmqAddress {
  /** amqp://guest:guest@127.0.0.1:PORT */
  url: string;
}

export const rabbitmq: BrokerKind<RabbitmqAddress> = {
  ports: 3, // AMQP, Erlang distribution, epmd
  prepare(dir, [amqpPort]) {
    fs.mkdirSync(path.join(dir, 'home'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'rabbitmq.conf'), [`listeners.tcp.default = 127.0.0.1:${amqpPort}`, 'log.console = true', 'log.console.level = warning', 'log.file = false', ''].join('\n'));
    fs.writeFileSync(path.join(dir, 'enabled_plugins'), '[].\n');
  },
  launches(dir, [amqpPort, distPort, epmdPort]) {
    const server = provisionedPath('RABBITMQ_SERVER_PATH');
    const epmd = { command: 'epmd', args: ['-port', String(epmdPort)], listens: epmdPort };
    const env = {
      HOME: path.join(dir, 'home'),
      ERL_EPMD_PORT: String(epmdPort),
      RABBITMQ_NODENAME: 'rabbit@localhost', // its own epmd: no other node to collide with
      RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
      RABBITMQ_NODE_PORT: String(amqpPort),
      RABBITMQ_DIST_PORT: String(distPort),
      RABBITMQ_CONF_ENV_FILE: path.join(dir, 'rabbitmq-env.conf'), // absent: nothing from /etc/rabbitmq
      RABBITMQ_CONFIG_FILE: path.join(dir, 'rabbitmq.conf'),
      RABBITMQ_ADVANCED_CONFIG_FILE: path.join(dir, 'advanced.config'),
      RABBITMQ_ENABLED_PLUGINS_FILE: path.join(dir, 'enabled_plugins'),
      RABBITMQ_MNESIA_BASE: path.join(dir, 'mnesia'),
      RABBITMQ_LOG_BASE: path.join(dir, 'logs'),
      RABBITMQ_PID_FILE: path.join(dir, 'rabbitmq.pid'),
      RABBITMQ_PLUGINS_EXPAND_DIR: path.join(dir, 'plugins-expand'),
      // Schedulers that sleep when idle rather than spin (Erlang's busy wait costs CPU on two cores).
      RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: '-start_epmd false +sbwt none +sbwtdcpu none +sbwtdio none',
    };
    return [epmd, { command: server, args: [], env }];
  },
  address: ([amqpPort]) => ({ url: `amqp://guest:guest@127.0.0.1:${amqpPort}` }),
  async probe({ url }) {
    const connection = await amqp.connect(url, { timeout: 2000 });
    await connection.close();
  },
};
