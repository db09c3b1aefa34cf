// The one script that produces every generated artefact: the Prisma client and Pothos types
// (prisma generate, offline), schema.graphql and openapi.json. `--check` fails when a
// checked-in artefact differs from what the code produces (CI runs it).
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

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
const { schema } = await import('../src/graphql/schema.ts');
const { buildOpenApiDocument } = await import('../src/rest/openapi.ts');

const artefacts: Record<string, string> = {
  'schema.graphql': printSchema(lexicographicSortSchema(schema)) + '\n',
  'openapi.json': JSON.stringify(buildOpenApiDocument(), null, 2) + '\n',
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
