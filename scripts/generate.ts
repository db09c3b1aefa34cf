// The one script that produces every generated artefact: the Prisma client and Pothos types
// (prisma generate, offline), schema.graphql, openapi.json and the example API client's types
// (examples/api-client/openapi-types.ts). `--check` fails when a
// checked-in artefact differs from what the code produces (CI runs it).
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

const root = path.resolve(import.meta.dirname, '..');
const check = process.argv.includes('--check');

// `prisma generate` never uses the native schema engine, but the CLI looks for one: any
// executable satisfies it, so nothing is downloaded.
execFileSync(path.join(root, 'node_modules/.bin/prisma'), ['generate', '--schema', 'schema.prisma'], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'inherit'],
  env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? '/bin/true', PRISMA_HIDE_UPDATE_MESSAGE: '1' },
});

// Imported after generation so the schema is built from the fresh client types.
const { printSchema, lexicographicSortSchema } = await import('graphql');
const { schema } = await import('../src/api/schema.ts');
const { buildOpenApiDocument } = await import('../src/api/openapi.ts');

const openapi = JSON.stringify(buildOpenApiDocument(), null, 2) + '\n';
const artefacts: Record<string, string> = {
  'schema.graphql': printSchema(lexicographicSortSchema(schema)) + '\n',
  'openapi.json': openapi,
  // Byte for byte what an integrator gets from `npx openapi-typescript …/openapi.json`, so the
  // example client is type-checked against the document we serve.
  'examples/api-client/openapi-types.ts': COMMENT_HEADER + astToString(await openapiTS(JSON.parse(openapi), { silent: true })),
};

let stale = false;
for (const [file, content] of Object.entries(artefacts)) {
  const full = path.join(root, file);
  const current = fs.existsSync(full) ? fs.readFileSync(full, 'utf8') : '';
  if (current === content) continue;
  if (check) {
    console.error(`${file} is out of date: run npm run generate`);
    stale = true;
  } else {
    fs.writeFileSync(full, content);
    console.log(`wrote ${file}`);
  }
}
if (check) {
  const diff = execFileSync('git', ['status', '--porcelain', '--', 'src/generated'], { cwd: root, encoding: 'utf8' });
  if (diff.trim()) {
    console.error(`the generated Prisma client differs from schema.prisma:\n${diff}`);
    stale = true;
  }
}
process.exit(stale ? 1 : 0);
