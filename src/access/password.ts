// Password hashes: argon2id with OWASP's recommended parameters (Password Storage Cheat Sheet:
// m=19 MiB, t=2, p=1), through @node-rs/argon2 (its binary ships in the npm package). Hashes of
// the earlier scheme, scrypt with N=2^14 (below OWASP's N=2^17), still verify, and sign-in
// replaces them with argon2id (needsRehash); the scrypt code goes once no such hash is left.
import crypto from 'node:crypto';
import { promisify } from 'node:util';
import { hash, verify } from '@node-rs/argon2';

const ARGON2ID = 2; // Algorithm.Argon2id: a const enum, which type-stripping cannot inline.
const PARAMS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
/** The PHC prefix of a hash made with PARAMS. */
const CURRENT = `$argon2id$v=19$m=${PARAMS.memoryCost},t=${PARAMS.timeCost},p=${PARAMS.parallelism}$`;

export function hashPassword(password: string): Promise<string> {
  return hash(password, PARAMS);
}

/** True when the stored hash was made otherwise than hashPassword makes them now. */
export const needsRehash = (stored: string) => !stored.startsWith(CURRENT);

const scrypt = promisify(crypto.scrypt) as (pw: string, salt: Buffer, len: number, opts: crypto.ScryptOptions) => Promise<Buffer>;

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (stored.startsWith('$argon2id$')) {
    try {
      return await verify(stored, password);
    } catch {
      return false; // not a well-formed hash
    }
  }
  const [scheme, n, r, p, salt, digest] = stored.split('$');
  if (scheme !== 'scrypt' || !digest) return false;
  const expected = Buffer.from(digest, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, { N: Number(n), r: Number(r), p: Number(p) });
  return crypto.timingSafeEqual(actual, expected);
}
