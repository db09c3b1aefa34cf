// See README.md beside this file: the real package is only loaded by `prisma dev`.
export async function startLocalDurableStreamsServer() {
  throw new Error('@prisma/streams-local is not installed in this project (package.json "overrides"): `prisma dev` is not used here; run the service with `npm start`.');
}
