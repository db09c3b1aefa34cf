// The one script that produces every generated artefact: the Prisma client and Pothos types
// (prisma generate, offline), schema.graphql, openapi.json, the example API client's types
// (examples/api-client/openapi-types.ts) and the settings UI's typed GraphQL documents
// (web/src/gql/). `--check` fails when a checked-in artefact differs from what the code produces
// (CI runs it).
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';
import { codegen } from '@graphql-codegen/core';
import { preset as clientPreset } from '@graphql-codegen/client-preset';

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
const { buildSchema, parse, printSchema, lexicographicSortSchema } = await import('graphql');
const { schema } = await import('../src/api/schema.ts');
const { buildOpenApiDocument } = await import('../src/api/openapi.ts');

const openapi = JSON.stringify(buildOpenApiDocument(), null, 2) + '\n';
const sdl = printSchema(lexicographicSortSchema(schema)) + '\n';
const artefacts: Record<string, string> = {
  'schema.graphql': sdl,
  'openapi.json': openapi,
  // Byte for byte what an integrator gets from `npx openapi-typescript …/openapi.json`, so the
  // example client is type-checked against the document we serve.
  'examples/api-client/openapi-types.ts': COMMENT_HEADER + astToString(await openapiTS(JSON.parse(openapi) as OpenAPI3, { silent: true })),
  ...(await uiDocuments(sdl)),
};

/**
 * The settings UI's operations (the `graphql(`…`)` calls of web/src/api/operations.ts) typed from
 * the schema by GraphQL Code Generator's client preset. String documents: the UI sends the text and
 * bundles no graphql-js; no fragment masking: a page reads a fragment's fields where it gets them.
 * The preset is driven through @graphql-codegen/core, as its CLI does: the CLI's loaders need a
 * newer @graphql-tools/utils than the server's (package.json overrides), and one file needs none.
 */
async function uiDocuments(schemaSdl: string): Promise<Record<string, string>> {
  const location = 'web/src/api/operations.ts';
  const source = fs.readFileSync(path.join(root, location), 'utf8');
  // Static template literals only (what the preset's graphql() overloads match), as the CLI plucks them.
  const documents = [...source.matchAll(/\bgraphql\(`((?:[^`$]|\$(?!\{))*)`\)/g)].map(([, rawSDL]) => ({ location, rawSDL, document: parse(rawSDL) }));
  const config = {
    documentMode: 'string',
    useTypeImports: true,
    enumsAsTypes: true,
    scalars: { DateTime: 'string', JSON: 'unknown' },
    strictScalars: true,
    importExtension: '.ts',
  };
  const outputs = await clientPreset.buildGeneratesSection({
    baseOutputDir: 'web/src/gql/',
    presetConfig: { fragmentMasking: false },
    plugins: [],
    pluginMap: {},
    schema: parse(schemaSdl),
    schemaAst: buildSchema(schemaSdl),
    documents,
    config,
    documentTransforms: [],
  });
  const files = await Promise.all(outputs.map(async (output) => [output.filename, await codegen({ ...output, importExtension: '.ts' })] as const));
  return Object.fromEntries(files);
}

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
  // A file the generator no longer writes is stale too.
  for (const name of fs.readdirSync(path.join(root, 'web/src/gql'))) {
    if (!(`web/src/gql/${name}` in artefacts)) {
      console.error(`web/src/gql/${name} is no longer generated: delete it`);
      stale = true;
    }
  }
  const diff = execFileSync('git', ['status', '--porcelain', '--', 'src/generated'], { cwd: root, encoding: 'utf8' });
  if (diff.trim()) {
    console.error(`the generated Prisma client differs from schema.prisma:\n${diff}`);
    stale = true;
  }
}
process.exit(stale ? 1 : 0);
