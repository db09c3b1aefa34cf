// Apache Kafka 4 from Maven Central's jars (provisioned into .tools/kafka-VERSION/libs), one node
// in KRaft mode that is both broker and controller, its storage formatted once with a random
// cluster id and kept across restarts. A small JVM: two cores are shared with the tests.
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Admin } from '@platformatic/kafka';
import { provisionedPath } from '../provision-env.ts';
import type { BrokerKind } from './broker-process.ts';

export interface KafkaAddress {
  /** ['127.0.0.1:PORT'], as the clients' bootstrapBrokers */
  brokers: string[];
}

// C1 only and the serial collector: a quick start and little CPU, not peak throughput.
const JVM = ['-Xms64m', '-Xmx384m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-XX:-UsePerfData', '-XX:+ExitOnOutOfMemoryError', '-Djava.awt.headless=true'];

function java(dir: string, args: string[]): { command: string; args: string[] } {
  const classpath = path.join(provisionedPath('KAFKA_LIBS_DIR'), '*');
  return { command: provisionedPath('JAVA_PATH'), args: [...JVM, `-Dlog4j2.configurationFile=${path.join(dir, 'log4j2.properties')}`, '-cp', classpath, ...args] };
}

export const kafka: BrokerKind<KafkaAddress> = {
  ports: 2, // clients (PLAINTEXT), controller
  prepare(dir, [port, controllerPort]) {
    const properties = {
      'process.roles': 'broker,controller',
      'node.id': 1,
      listeners: `PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
      'advertised.listeners': `PLAINTEXT://127.0.0.1:${port}`,
      'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
      'controller.listener.names': 'CONTROLLER',
      'inter.broker.listener.name': 'PLAINTEXT',
      'controller.quorum.bootstrap.servers': `127.0.0.1:${controllerPort}`,
      'log.dirs': path.join(dir, 'data'),
      'num.partitions': 3,
      'auto.create.topics.enable': true,
      'default.replication.factor': 1,
      'min.insync.replicas': 1,
      // One node: every internal topic has one replica, and one partition is plenty for tests.
      'offsets.topic.replication.factor': 1,
      'offsets.topic.num.partitions': 1,
      'transaction.state.log.replication.factor': 1,
      'transaction.state.log.min.isr': 1,
      'transaction.state.log.num.partitions': 1,
      'share.coordinator.state.topic.replication.factor': 1,
      'share.coordinator.state.topic.min.isr': 1,
      'group.initial.rebalance.delay.ms': 0,
    };
    fs.writeFileSync(path.join(dir, 'server.properties'), Object.entries(properties).map(([k, v]) => `${k}=${v}\n`).join(''));
    // Warnings and errors only, to the broker's log (its stdout).
    fs.writeFileSync(
      path.join(dir, 'log4j2.properties'),
      ['appender.out.type = Console', 'appender.out.name = out', 'appender.out.layout.type = PatternLayout', 'appender.out.layout.pattern = [%d] %p %m (%c)%n', 'rootLogger.level = WARN', 'rootLogger.appenderRef.out.ref = out', ''].join('\n'),
    );
    // A cluster id is 16 random bytes in URL-safe base64; --standalone makes this node the quorum's one voter.
    const format = java(dir, ['kafka.tools.StorageTool', 'format', '--cluster-id', crypto.randomBytes(16).toString('base64url'), '--config', path.join(dir, 'server.properties'), '--standalone']);
    execFileSync(format.command, format.args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
  },
  launches: (dir) => [java(dir, ['kafka.Kafka', path.join(dir, 'server.properties')])],
  address: ([port]) => ({ brokers: [`127.0.0.1:${port}`] }),
  // Ready when the broker answers a metadata request with itself in it.
  async probe({ brokers }) {
    const admin = new Admin({ clientId: 'readiness', bootstrapBrokers: brokers, retries: 0, timeout: 2000 });
    try {
      const metadata = await admin.metadata({ topics: [] });
      if (metadata.brokers.size === 0) throw new Error('no broker in the metadata yet');
    } finally {
      await admin.close();
    }
  },
};
