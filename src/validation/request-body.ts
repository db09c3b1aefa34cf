// Reads a JSON body with the API's rules: JSON media type (415), at most 1 MiB (413),
// valid UTF-8 and JSON, nested at most 64 deep (400). REST routes and /graphql read bodies here.
import { AppError } from '../errors/errors.ts';

export const MAX_BODY_BYTES = 1024 * 1024;
/** Arrays and objects within each other: JSON.parse of 400,000 levels (800 KB) exhausts the heap,
 * and deep values would overflow the stack of whatever walks them later (JSON.stringify). */
export const MAX_JSON_DEPTH = 64;
const utf8 = new TextDecoder('utf-8', { fatal: true });

function isJsonMediaType(contentType: string | null): boolean {
  if (!contentType) return false;
  const type = contentType.split(';')[0].trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

export async function readJsonBody(request: Request): Promise<unknown> {
  const length = request.headers.get('content-length');
  if (length !== null && Number(length) > MAX_BODY_BYTES) {
    throw new AppError('payload_too_large', `The body may be at most ${MAX_BODY_BYTES} bytes`);
  }
  // A declared length is a body (maybe empty); `request.body` is only touched without one, since
  // on @hono/node-server it builds a web stream over the socket.
  if (length === null && !request.body) throw new AppError('invalid_json', 'This call needs a JSON body');
  if (!isJsonMediaType(request.headers.get('content-type'))) {
    throw new AppError('unsupported_media_type', 'Send the body as JSON with `Content-Type: application/json`');
  }
  const bytes = length !== null ? await readDeclared(request) : await readCounted(request);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new AppError('invalid_json', 'The body is not valid UTF-8');
  }
  if (text.trim() === '') throw new AppError('invalid_json', 'This call needs a JSON body');
  assertJsonDepth(text, 'The body');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new AppError('invalid_json', `The body is not valid JSON: ${(err as Error).message}`);
  }
}

const [QUOTE, BACKSLASH, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET] = ['"', '\\', '{', '}', '[', ']'].map((c) => c.charCodeAt(0));

/**
 * Refuses JSON text that nests arrays and objects deeper than MAX_JSON_DEPTH, by one pass over its
 * characters before JSON.parse is given it. Strings are skipped with indexOf (brackets in them do
 * not count), so text such as a long description costs next to nothing.
 */
export function assertJsonDepth(text: string, what: string): void {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      do i = text.indexOf('"', i + 1);
      while (i !== -1 && isEscaped(text, i));
      // An unterminated string: JSON.parse reports it.
      if (i === -1) return;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > MAX_JSON_DEPTH) throw new AppError('invalid_json', `${what} may nest arrays and objects at most ${MAX_JSON_DEPTH} deep`);
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
}

/** A quote after an odd number of backslashes is part of the string. */
function isEscaped(text: string, quote: number): boolean {
  let backslashes = 0;
  while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
  return backslashes % 2 === 1;
}

/**
 * With Content-Length (checked above) Node's parser reads exactly that many bytes, so the body is
 * taken whole: @hono/node-server then reads it straight from the socket, without a web stream
 * (that stream was most of the cost of reading a small body). Counted anyway for in-process callers.
 */
async function readDeclared(request: Request): Promise<Uint8Array> {
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.byteLength > MAX_BODY_BYTES) throw new AppError('payload_too_large', `The body may be at most ${MAX_BODY_BYTES} bytes`);
  return bytes;
}

/** Without Content-Length: counted while it streams in, and refused as soon as it is too large. */
async function readCounted(request: Request): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      throw new AppError('payload_too_large', `The body may be at most ${MAX_BODY_BYTES} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
