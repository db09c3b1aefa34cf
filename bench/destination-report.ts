// The Markdown of bench/destinations.ts: what ran, the throughput table (each type beside HTTPS),
// the outage's two tables and its targets. docs/contributing/benchmarks.md says how to read it.
import os from 'node:os';
import type { Pcts } from './percentile.ts';
import type { ThroughputResult } from './destination-throughput.ts';
import type { OutageResult } from './destination-outage.ts';

export interface ReportInput {
  commit: { commit: string; dirty: boolean };
  database: string;
  loadBefore: string;
  loadAfter: string;
  options: { concurrency: number; outageSeconds: number; idleSeconds: number; everyMs: number; pollMs: number; drainSeconds: number };
  throughput?: ThroughputResult;
  outage?: OutageResult;
}

const fmt = (x: number | null | undefined, digits = 0) => (x === null || x === undefined || !Number.isFinite(x) ? 'n/a' : x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }));
const mark = (ok: boolean) => (ok ? '**pass**' : '**FAIL**');
const pair = (p: Pcts) => `${fmt(p.p50)} / ${fmt(p.p95)}`;

export function destinationsReport(r: ReportInput): string {
  const o = r.options;
  const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const lines = [
    `# Broker destinations beside HTTPS: deliveries/s, CPU per delivery, a broker that stops answering (${r.database.startsWith('PGlite') ? 'embedded default' : 'PostgreSQL'}, ${date})`,
    '',
    `Machine: ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.availableParallelism()} cores, ${fmt(os.totalmem() / 2 ** 30, 1)} GiB RAM; Node ${process.version}. \`${r.commit.commit}\`${r.commit.dirty ? ' with uncommitted changes' : ''}.`,
    `The service as \`npm start\` runs it (built bundle, ${r.database}, the Temporal dev server), started afresh for each case on a new data directory and driven through the public API only; \`WEBHOOK_ALLOW_PRIVATE_TARGETS=true\` for the loopback brokers and receiver, and an allowance of 1,000,000 requests/min (the benchmark polls backlogs and the events feed). The brokers are real servers on loopback, each the run's own (scripts/throwaway-brokers.ts): RabbitMQ and NATS (JetStream) from Debian's packages, Apache Kafka 4.x in KRaft mode (one broker), Amazon SQS and EventBridge as moto's server (Python, one process for both). Everything shares the machine's ${os.availableParallelism()} cores; the benchmark ran alone on it, other helpers' processes stopped (/work/bin/freezeloop).`,
    `Load before: \`${r.loadBefore}\`; after: \`${r.loadAfter}\`.`,
    '',
  ];
  const t = r.throughput;
  if (t) {
    const held = Math.max(...t.groups.map((g) => g.events)) + 100;
    lines.push(
      '## Throughput: two subscriptions per event',
      '',
      `Per group of types, one workspace with two subscriptions to \`ticket.updated\` per destination type and two on the HTTPS receiver beside them (each its own queue, bus, topic, exchange or stream, or path on the receiver; default settings: \`maxInFlight\` 10, unordered). All paused, then the group's events written (PATCH /tickets/{id}, ${o.concurrency} at a time), so that each subscription holds every event (\`MAX_HELD_DELIVERIES_PER_SUBSCRIPTION\` raised to ${fmt(held)} for this case); then each type's pair is resumed alone, in the order of the table. Deliveries/s: the pair's deliveries ÷ (resume → both backlogs empty, GET /webhooks/{id} every 100 ms: every delivery acknowledged by its broker, or answered 2xx, and recorded). CPU per delivery over the same span, from /proc: the whole machine (every process and the kernel), the service's one process (API, relay, worker${r.database.startsWith('PGlite') ? ', PGlite' : ''}), the dev server, the type's broker (moto for SQS and EventBridge), this benchmark (the HTTPS receiver and the backlog polls). Afterwards every (event, subscription) is looked for at its place, read back from the broker with the tests' consumers (test/webhooks/destinations/readers.ts), or at the receiver; a second copy of a webhook-id is a duplicate. SQS and EventBridge are a group of their own with fewer events: moto (Python, one process) is far slower than AWS, and reading thousands of messages back from it takes minutes; its figures are moto's, not Amazon's.`,
      '',
      '| Group, destination | deliveries | resume → backlogs empty | **deliveries/s** | ÷ HTTPS of the group | machine CPU ms/delivery | service / dev server / broker / benchmark CPU ms/delivery | cores idle | attempts (failed) | attempt p50 / p95 ms | missing / duplicates |',
      '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
    );
    for (const g of t.groups) {
      const https = g.rows.find((x) => x.type === 'https');
      for (const x of g.rows) {
        lines.push(
          `| ${g.name}, ${x.type} | ${fmt(x.deliveries)} of ${fmt(x.expected)} | ${x.seconds === null ? 'not drained' : `${fmt(x.seconds, 1)} s`} | **${fmt(x.perSecond)}** | ${https?.perSecond && x.perSecond ? `${fmt(x.perSecond / https.perSecond, 2)}×` : 'n/a'} | ${fmt(x.machineMs, 2)} | ${fmt(x.serviceMs, 2)} / ${fmt(x.devServerMs, 2)} / ${x.brokerMs === null ? '–' : fmt(x.brokerMs, 2)} / ${fmt(x.benchMs, 2)} | ${fmt(x.idleShare * 100)}% | ${fmt(x.attempts)} (${fmt(x.failed)}) | ${fmt(x.attemptP50, 1)} / ${fmt(x.attemptP95, 1)} | ${fmt(x.missing)} / ${fmt(x.duplicates)} |`,
        );
      }
    }
    lines.push(
      '',
      ...t.groups.map((g) => `Group ${g.name}: ${fmt(g.events)} events written in ${fmt(g.writeSeconds, 1)} s (${g.writeFailed} PATCHes failed); distinct events that reached its subscriptions, all together: ${fmt(g.distinctEvents)}.`),
      '',
      "Attempts include each subscription's Test action (one each); an attempt's duration is its broker call (a batch call counts for each message in it), the first subscription's.",
      '',
    );
  }
  const u = r.outage;
  if (u) {
    lines.push(
      `## Outage: ${u.frozen} stops answering for ${o.outageSeconds} s`,
      '',
      `One workspace with four subscriptions to \`ticket.updated\` (default settings and retry schedule): two on ${u.frozen}, one on the HTTPS receiver, one on ${u.other}. A ticket is updated every ${o.everyMs} ms: ${o.idleSeconds} s idle (${u.events.idle} events), then ${o.outageSeconds} s with every process of the ${u.frozen} broker stopped by SIGSTOP (${u.events.during} events; its connections stay open and nothing answers, as a hung server), then it is continued (SIGCONT). ${u.events.failed} PATCHes failed. Event-to-arrival: the event's occurredAt → its arrival at the receiver, or its read at the broker (each place read every ${o.pollMs} ms by a loop of its own); an event that never arrived counts as infinitely late (n/a). The frozen broker's subscriptions are watched every second (GET /webhooks/{id}); one the engine paused (20 failures in a row) is resumed by the benchmark from the thaw on, as an operator answers the notice. While paused, a subscription that has 100 deliveries waiting (the held cap, \`MAX_HELD_DELIVERIES_PER_SUBSCRIPTION\`, default here) skips newer events for good: "lost" counts the events that never reached it once its backlogs were empty. Read errors at the brokers (the frozen one's reads hang or fail): ${u.readErrors}.`,
      '',
      '| Other subscription | idle p50 / p95 ms | during the outage p50 / p95 ms | during ÷ idle p95 | p95 ≤ 2 × idle p95 | ≤ 2 × idle p95 + 250 ms (the cases\' rule) |',
      '|---|--:|--:|--:|---|---|',
    );
    for (const x of u.others) {
      const ok = (slack: number) => x.idle.p95 !== null && x.during.p95 !== null && x.during.p95 <= 2 * x.idle.p95 + slack;
      lines.push(`| ${x.type} | ${pair(x.idle)} | ${pair(x.during)} | ${x.idle.p95 && x.during.p95 !== null ? `${fmt(x.during.p95 / x.idle.p95, 2)}×` : 'n/a'} | ${mark(ok(0))} | ${mark(ok(250))} |`);
    }
    lines.push(
      '',
      `| Frozen ${u.frozen} subscription | events | arrived after the thaw | lost | duplicates | paused by the engine after the freeze | resumed by the benchmark | most waiting at once | last arrival after the thaw | attempts (failed) |`,
      '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
    );
    u.frozenSubs.forEach((x, i) =>
      lines.push(
        `| ${i + 1} | ${fmt(x.expected)} | ${fmt(x.arrived)} | ${fmt(x.missing)} | ${fmt(x.duplicates)} | ${x.pausedAfter === null ? 'not paused' : `${fmt(x.pausedAfter)} s`} | ${x.resumes ? `${x.resumes}×` : 'no'} | ${fmt(x.peakWaiting)} | ${x.lastAfter < 0 ? 'none after it' : `${fmt(x.lastAfter, 1)} s${x.missing ? ' (the rest never)' : ''}`} | ${fmt(x.attempts)} (${fmt(x.failed)}) |`,
      ),
    );
    const lost = u.frozenSubs.reduce((s, x) => s + x.missing, 0);
    lines.push(
      '',
      '| Target | Measured | Result |',
      '|---|---|---|',
      ...u.others.map((x) => `| ${x.type}'s p95 during the outage within 2 × its idle p95 | ${fmt(x.during.p95)} ms against ${fmt(x.idle.p95)} ms | ${mark(x.idle.p95 !== null && x.during.p95 !== null && x.during.p95 <= 2 * x.idle.p95)} |`),
      `| Nothing lost at ${u.frozen} once it is back | ${fmt(lost)} of ${fmt(u.frozenSubs.reduce((s, x) => s + x.expected, 0))} missing once its backlogs were empty | ${mark(lost === 0)} |`,
      `| …without a hand (the engine never paused the frozen broker's subscriptions) | ${u.frozenSubs.map((x) => (x.pausedAfter === null ? 'not paused' : `paused after ${fmt(x.pausedAfter)} s`)).join(', ')} | ${mark(u.frozenSubs.every((x) => x.pausedAfter === null))} |`,
      '',
    );
  }
  return lines.join('\n');
}
