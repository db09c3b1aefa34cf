// JSON with object members in sorted order, for hashing requests (idempotency.service.ts).
// Iterative: a body nested thousands deep is cheap to parse but would exhaust the call stack of a
// recursive serializer. For JSON values the text is exactly safe-stable-stringify's (members
// sorted by code unit, JSON.stringify's escaping), so hashes stored before the change still match.

/** Text already serialised, waiting on the work stack. */
class Piece {
  constructor(readonly text: string) {}
}

export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  const work: unknown[] = [value];
  while (work.length) {
    const item = work.pop();
    if (item instanceof Piece) {
      out.push(item.text);
    } else if (Array.isArray(item)) {
      work.push(new Piece(']'));
      for (let i = item.length - 1; i >= 0; i--) {
        work.push(item[i] === undefined || typeof item[i] === 'function' ? null : item[i]);
        if (i > 0) work.push(new Piece(','));
      }
      work.push(new Piece('['));
    } else if (item !== null && typeof item === 'object') {
      const record = item as Record<string, unknown>;
      const keys = Object.keys(record)
        .filter((k) => record[k] !== undefined && typeof record[k] !== 'function')
        .sort();
      work.push(new Piece('}'));
      for (let i = keys.length - 1; i >= 0; i--) {
        work.push(record[keys[i]]);
        work.push(new Piece(`${i > 0 ? ',' : ''}${JSON.stringify(keys[i])}:`));
      }
      work.push(new Piece('{'));
    } else {
      out.push(JSON.stringify(item) ?? 'null');
    }
  }
  return out.join('');
}
