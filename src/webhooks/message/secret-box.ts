// Webhook signing secrets at rest: AES-256-GCM (node:crypto), a random 96-bit IV per value, the
// key's id and the value's place stored with each ciphertext:
// `enc2.<key id>.<subscription id>.<column>.<iv>.<ciphertext and tag>` (base64url), in the same
// column the secret was in. Only the repositories seal and open them, so services and
// activities see the `whsec_…` value and a database dump or backup shows none.
//
// The keys: WEBHOOK_SECRET_KEYS (required in production: every process of the service gets the
// same list), else the key file DATA_DIR/webhook-secret-keys (0600, made on first use: the embedded
// default, or processes that share DATA_DIR). The first key seals; every listed key opens. `npm run cli --
// secrets reencrypt` re-seals every row under the first key (src/admin/commands.ts).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { config, parseSecretKeys, type Config, type SecretKey } from '../../config.ts';
import { forget, onFirstUse } from '../../lazy.ts';
import { onResetForTests } from '../../reset-for-tests.ts';

const PREFIX = 'enc2';
const COLUMNS = new Set<string>(['secret', 'previousSecret', 'destinationCredentials']);

/** Where a sealed value belongs: one subscription's `secret` or `previousSecret`. */
export interface SecretPlace {
  subscriptionId: string;
  column: 'secret' | 'previousSecret' | 'destinationCredentials';
}

/**
 * Binds a ciphertext to its use and its place (AES-GCM additional data): one moved to another row
 * or column does not open, so write access to the table without the key cannot make one
 * subscription sign with another's secret. The place is also written in clear beside it, to name it in errors.
 */
const aad = (p: SecretPlace) => Buffer.from(`ticketing webhook signing secret\u0000${p.subscriptionId}\u0000${p.column}`);

/** A stored value names a key this process does not hold; the message names the key. */
export class SecretKeyMissingError extends Error {}

export const keyFile = (dataDir: string) => path.join(dataDir, 'webhook-secret-keys');

/**
 * Production takes its keys from WEBHOOK_SECRET_KEYS only: a key file is made by whichever process
 * first needs one, in its own DATA_DIR (another container's or machine's is not the same file), and
 * one lost with its folder leaves every stored signing secret unreadable. Undefined when the keys
 * may come from the key file; else why the service refuses to start (and to seal or open a secret).
 */
export function productionKeysMissing(c: Pick<Config, 'isProduction' | 'webhooks'> = config): string | undefined {
  if (!c.isProduction || c.webhooks.secretKeys) return undefined;
  return (
    'NODE_ENV=production needs WEBHOOK_SECRET_KEYS: the keys that encrypt webhook signing secrets, the same list for every api and worker process, ' +
    'as id:base64 of 32 bytes, comma-separated, the first encrypting (a new one: WEBHOOK_SECRET_KEYS=k1:$(openssl rand -base64 32); a service that ran ' +
    'with the key file DATA_DIR/webhook-secret-keys: its lines, comma-separated). See docs/operators/admin-cli.md, "Webhook secrets".'
  );
}

/** WEBHOOK_SECRET_KEYS's format (the key file's too, a key a line). */
export const formatSecretKeys = (keys: SecretKey[]) => keys.map((k) => `${k.id}:${k.key.toString('base64')}`).join(',');

/** Writes the key file atomically, owner-only. */
function writeKeyFile(file: string, keys: SecretKey[]) {
  const draft = `${file}.${process.pid}.new`;
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(draft, keys.map((k) => `${k.id}:${k.key.toString('base64')}\n`).join(''), { mode: 0o600 });
  fs.renameSync(draft, file);
}

const newKey = (): SecretKey => ({ id: `k${crypto.randomBytes(4).toString('hex')}`, key: crypto.randomBytes(32) });

/** A WEBHOOK_SECRET_KEYS of one new key: for processes run in production shape that keep no data (the benchmarks). */
export const newSecretKeys = () => formatSecretKeys([newKey()]);

function readKeyFile(file: string): SecretKey[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    // First use: made here, exclusively, so two processes starting together end with one key.
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      const key = newKey();
      fs.writeFileSync(file, `${key.id}:${key.key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    text = fs.readFileSync(file, 'utf8');
  }
  const keys = parseSecretKeys(text);
  if (typeof keys === 'string') throw new Error(`${file}: ${keys}`);
  return keys;
}

/**
 * The keys in use. From the file they are read again whenever it changed (`secrets reencrypt` in
 * another process writes a new one, renamed into place): a running service seals under the key the
 * file names first now, never under one the rotation is about to drop.
 */
export class KeyRing {
  private keys: SecretKey[] | undefined;
  /** The key file as last read (inode, size, mtime). */
  private readVersion = '';
  constructor(
    private readonly configured: SecretKey[] | undefined,
    private readonly file: string,
    /** Set (productionKeysMissing's message): no key file is read or made, every use refuses. */
    private readonly refusal?: string,
  ) {}

  get fromConfig() {
    return this.configured !== undefined;
  }

  /** Where the keys come from, for messages. */
  get source() {
    return this.configured ? 'WEBHOOK_SECRET_KEYS' : this.file;
  }

  private fileVersion(): string {
    try {
      const st = fs.statSync(this.file);
      return `${st.ino}:${st.size}:${st.mtimeMs}`;
    } catch {
      return '';
    }
  }

  all(): SecretKey[] {
    if (this.configured) return this.configured;
    if (this.refusal) throw new Error(this.refusal);
    // The version is taken before reading: a change in between is read on the next call.
    const version = this.fileVersion();
    if (!this.keys || version !== this.readVersion) {
      this.keys = readKeyFile(this.file);
      this.readVersion = version;
    }
    return this.keys;
  }

  /** The keys there are, without making a key file: undefined when there is none. */
  existing(): SecretKey[] | undefined {
    if (this.configured) return this.configured;
    if (this.refusal) throw new Error(this.refusal);
    return fs.existsSync(this.file) ? this.all() : undefined;
  }

  current(): SecretKey {
    return this.all()[0];
  }

  byId(id: string): SecretKey {
    const key = this.all().find((k) => k.id === id);
    if (!key) {
      throw new SecretKeyMissingError(
        `A webhook secret is encrypted with key ${id}, which ${this.configured ? 'WEBHOOK_SECRET_KEYS does not list' : `${this.file} does not hold`}: every process of the service needs every key in use ` +
          '(a new key is added second everywhere before any process puts it first: docs/operators/admin-cli.md, "Webhook secrets").',
      );
    }
    return key;
  }

  /** Key file only: a new key first, the others kept until no row uses them. */
  addKey(): SecretKey {
    if (this.refusal) throw new Error(this.refusal);
    const key = newKey();
    writeKeyFile(this.file, [key, ...readKeyFile(this.file)]);
    return key;
  }

  /** Key file only: keeps the listed keys (in order) and drops the rest. */
  keepOnly(ids: Set<string>) {
    if (this.refusal) throw new Error(this.refusal);
    writeKeyFile(this.file, readKeyFile(this.file).filter((k) => ids.has(k.id)));
  }
}

export const secretKeys: KeyRing = onFirstUse(() => new KeyRing(config.webhooks.secretKeys, keyFile(config.dataDir), productionKeysMissing()));
// A test file's fresh DATA_DIR has no key file yet (src/reset-for-tests.ts): the ring keeps what it read.
onResetForTests(() => forget(secretKeys));

const isSealed = (stored: string) => stored.startsWith(`${PREFIX}.`);

/** The key id a stored value was sealed with; undefined for a value that is not sealed (none is). */
export const sealedWith = (stored: string) => (isSealed(stored) ? stored.split('.')[1] : undefined);

export function sealSecret(plain: string, place: SecretPlace, key: SecretKey = secretKeys.current()): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key.key, iv).setAAD(aad(place));
  const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return [PREFIX, key.id, place.subscriptionId, place.column, iv.toString('base64url'), sealed.toString('base64url')].join('.');
}

function decrypt(keyId: string, iv: string, body: string, additionalData: Buffer): string {
  const data = Buffer.from(body, 'base64url');
  const decipher = crypto.createDecipheriv('aes-256-gcm', secretKeys.byId(keyId).key, Buffer.from(iv, 'base64url')).setAAD(additionalData);
  decipher.setAuthTag(data.subarray(data.length - 16));
  return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString('utf8');
}

/** The plain secret, opened only where it was sealed for (`place`: the row and column the caller read it from). */
export function openSecret(stored: string, place: SecretPlace): string {
  const [prefix, id, subscriptionId, column, iv, body, extra] = stored.split('.');
  if (prefix !== PREFIX || !id || !subscriptionId || !COLUMNS.has(column) || !iv || !body || extra !== undefined) {
    throw new Error('a webhook secret in the database is not sealed');
  }
  if (place.subscriptionId !== subscriptionId || place.column !== column) {
    throw new Error(`a webhook secret of subscription ${place.subscriptionId} (${place.column}) was sealed for another place (${subscriptionId}, ${column}): it does not open here`);
  }
  return decrypt(id, iv, body, aad({ subscriptionId, column }));
}
