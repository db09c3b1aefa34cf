// Every duration and tuning figure of the sender (webhook-sender.ts, delivery-agent.ts,
// host-resolver.ts), each with its reason and the test that pins it (the delivery run's are in
// ../delivery/constants.ts, the relay's in ../fanout/constants.ts).

/** One attempt's whole time (connect, TLS, request, answer): the contract's 10 s; a slower answer is a time-out failure. (webhook-sender.test.ts) */
export const DELIVERY_TIMEOUT_MS = 10_000;

/**
 * A kept-alive receiver connection closes after this long idle: under Node's and most servers'
 * own keep-alive time-out (5 s), so a reused connection is seldom one the receiver is closing.
 * (delivery-agent.test.ts)
 */
export const AGENT_IDLE_MS = 4_000;

/** One try of each DNS query of a webhook host; c-ares caps a server's time-out at 5 s anyway. Saving a URL and a delivery's connection wait at most this long. (host-resolver.test.ts) */
export const DNS_TIMEOUT_MS = 5_000;

/**
 * A broker connection unused this long is closed (destinations/client-cache.ts): longer than
 * AGENT_IDLE_MS, since a broker client's handshake (SASL, AMQP, Kafka metadata) costs more than a
 * TLS one, and a subscription that sends every few seconds keeps its connection.
 */
export const BROKER_IDLE_MS = 30_000;

/** Broker connections one worker keeps open at most (one per subscription that sends); the least recently used idle one makes room. */
export const MAX_BROKER_CLIENTS = 500;
