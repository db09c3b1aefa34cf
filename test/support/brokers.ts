// The message brokers of the webhook destinations for tests: RabbitMQ, NATS (JetStream), Kafka
// (KRaft) and moto (Amazon SQS and EventBridge), real servers on loopback that
// scripts/throwaway-brokers.ts runs from what scripts/provision.sh installed. Lazy and shared: a
// run whose files ask for none starts none; the first file that asks for one starts it, and every
// other file of the run, in any worker process, gets the same one. Global setup names the run's
// brokers folder (TEST_BROKERS_DIR) and its teardown stops them all.
//
//   const { url } = await broker('rabbitmq');          // amqp://guest:guest@127.0.0.1:P
//   const { servers } = await broker('nats');          // 127.0.0.1:P
//   const { brokers } = await broker('kafka');         // ['127.0.0.1:P']
//   const aws = await broker('aws');                   // { endpoint, region, accessKeyId, secretAccessKey }
//
// A test that stops, kills or freezes a broker (an outage) must not do it to the shared one, which
// the other worker's files are using at the same time: `ownBroker(name)` starts one of the file's
// own (a start's cost: see docs/contributing/testing.md) with stop, start, freeze, thaw and close.
import { brokerNames, ownBroker as startOwnBroker, sharedBroker, type BrokerAddresses, type BrokerName, type OwnBroker } from '../../scripts/throwaway-brokers.ts';

export { brokerNames, type BrokerAddresses, type BrokerName, type OwnBroker };

function brokersDir(): string {
  const dir = process.env.TEST_BROKERS_DIR;
  if (!dir) throw new Error('TEST_BROKERS_DIR is not set: run the tests with vitest, whose global setup (test/support/global-setup.ts) names the run\'s brokers folder');
  return dir;
}

const ownerPid = () => Number(process.env.TEST_RUN_OWNER_PID) || undefined;

const started = new Map<BrokerName, Promise<unknown>>();

/** The run's shared broker `name`, started by the first file that asks. */
export function broker<N extends BrokerName>(name: N): Promise<BrokerAddresses[N]> {
  let address = started.get(name);
  if (!address) {
    address = sharedBroker(brokersDir(), name, { ownerPid: ownerPid() });
    // A failed start is not remembered: the next call reads the same failure from the folder.
    void address.catch(() => started.delete(name));
    started.set(name, address);
  }
  return address as Promise<BrokerAddresses[N]>;
}

/** A broker of the calling file's own, for outages; `close()` it in afterAll (the run's teardown stops it otherwise). */
export function ownBroker<N extends BrokerName>(name: N): Promise<OwnBroker<N>> {
  return startOwnBroker(brokersDir(), name, { ownerPid: ownerPid() });
}
