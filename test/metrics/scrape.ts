// Reads samples out of a /metrics answer (Prometheus' text format).

/** Every sample of the text: `name{label="value",…}` → value. */
export function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

/** The sample's value (0 when absent); labels in any order. */
export function sample(all: Map<string, number>, name: string, labels: Record<string, string> = {}): number {
  const want = Object.entries(labels);
  for (const [key, value] of all) {
    const brace = key.indexOf('{');
    if ((brace < 0 ? key : key.slice(0, brace)) !== name) continue;
    const have = brace < 0 ? '' : key.slice(brace + 1, -1);
    const pairs = have ? have.split(/,(?=[a-z_]+=")/).map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]) : [];
    if (pairs.length !== want.length) continue;
    if (want.every(([k, v]) => pairs.some(([pk, pv]) => pk === k && pv === JSON.stringify(v)))) return value;
  }
  return 0;
}
