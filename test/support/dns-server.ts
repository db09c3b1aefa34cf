// A DNS server for tests, on 127.0.0.1 (UDP, dgram; packets by dns-packet): each name answers as
// the test says (addresses for A and AAAA, NXDOMAIN, or never), and every question it got is
// recorded. Point the webhook host resolver at it (createHostResolver's `servers`, or
// WEBHOOK_DNS_SERVERS) so that no test asks a DNS beyond loopback.
import dgram from 'node:dgram';
import net from 'node:net';
import dnsPacket from 'dns-packet';

/** How a name answers: its addresses, `nxdomain`, or `never` (the question is recorded, no answer sent). */
export type DnsAnswer = string[] | 'nxdomain' | 'never';

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, for `servers` or WEBHOOK_DNS_SERVERS. */
  address: string;
  /** The questions received, in order (name in lower case, type). */
  questions: { name: string; type: string }[];
  /** Questions for names under `suffix` received so far. */
  asked(suffix: string): number;
  close(): Promise<void>;
}

/** `answer(name)` decides per question, at once or later (a held answer); a name it does not know is NXDOMAIN. */
export async function startDnsServer(answer: (name: string) => DnsAnswer | undefined | Promise<DnsAnswer | undefined>): Promise<TestDnsServer> {
  const socket = dgram.createSocket('udp4');
  const questions: { name: string; type: string }[] = [];
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- a failing `answer` is an unhandled rejection, which fails the vitest run
  socket.on('message', async (message, peer) => {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    if (!question) return;
    const name = question.name.toLowerCase();
    questions.push({ name, type: question.type });
    const found = (await answer(name)) ?? 'nxdomain';
    if (found === 'never') return;
    const family = question.type === 'A' ? 4 : question.type === 'AAAA' ? 6 : 0;
    const answers = found === 'nxdomain' ? [] : found.filter((a) => net.isIP(a) === family).map((data) => ({ type: question.type, class: 'IN', name: question.name, ttl: 5, data }));
    const reply = dnsPacket.encode({
      id: query.id,
      type: 'response',
      // QR, RD and RA set, with NXDOMAIN (3) when the name is unknown.
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (found === 'nxdomain' ? 3 : 0),
      questions: [question],
      answers,
    } as dnsPacket.Packet);
    socket.send(reply, peer.port, peer.address, () => undefined); // closed meanwhile: nothing to tell
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    questions,
    asked: (suffix) => questions.filter((q) => q.name === suffix || q.name.endsWith(`.${suffix}`)).length,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
