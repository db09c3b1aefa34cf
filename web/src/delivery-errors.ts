// A delivery attempt's error (the sender's words: a Node error code and message, a timeout, the
// URL policy) said for a person, with the original kept beside it for whoever runs the endpoint.

const EXPLAINED: [RegExp, string][] = [
  [/ECONNREFUSED/, 'The endpoint refused the connection: nothing listens at that address and port.'],
  [/ENOTFOUND|EAI_AGAIN/, 'The endpoint’s host name could not be found: check the address for typos and its DNS record.'],
  [/EHOSTUNREACH|ENETUNREACH/, 'The endpoint’s network could not be reached.'],
  [/ECONNRESET|socket hang up|EPIPE/, 'The endpoint closed the connection before it answered.'],
  [/no answer within|ETIMEDOUT|timed? ?out/i, 'The endpoint did not answer in time.'],
  [/CERT|certificate|self[- ]signed|UNABLE_TO_VERIFY|ERR_TLS|SSL/i, 'The endpoint’s TLS certificate is not trusted (expired, self-signed, or for another name).'],
  [/URL policy/, 'The address is not allowed for webhooks (private, local or not https on port 443 or 8443).'],
];

/** The plain sentence for an attempt's error, or null when there is none to add. */
export function explainDeliveryError(error: string): string | null {
  for (const [pattern, sentence] of EXPLAINED) if (pattern.test(error)) return sentence;
  return null;
}
