// The brokers that the webhook destinations' tests and benchmarks run, by name.
import type { BrokerKind } from './broker-process.ts';
import { aws, type AwsAddress } from './aws.ts';
import { kafka, type KafkaAddress } from './kafka.ts';
import { nats, type NatsAddress } from './nats.ts';
import { rabbitmq, type RabbitmqAddress } from './rabbitmq.ts';

export interface BrokerAddresses {
  rabbitmq: RabbitmqAddress;
  nats: NatsAddress;
  kafka: KafkaAddress;
  /** Amazon SQS and EventBridge (moto) */
  aws: AwsAddress;
}

export type BrokerName = keyof BrokerAddresses;

export const brokerKinds: { [N in BrokerName]: BrokerKind<BrokerAddresses[N]> } = { rabbitmq, nats, kafka, aws };

export const brokerNames = Object.keys(brokerKinds) as BrokerName[];

export const isBrokerName = (name: string): name is BrokerName => Object.hasOwn(brokerKinds, name);
