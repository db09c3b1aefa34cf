// ESLint (flat config; `npm run lint`, and test/docs/lint.test.ts expects nothing reported):
// ESLint's recommended rules and typescript-eslint's recommended type-aware rules (among them
// no-floating-promises and no-misused-promises) over every source file, with type information
// from tsconfig.json and web/tsconfig.json through the project service. Each rule turned off or
// down below says why, beside it.
import { execFileSync } from 'node:child_process';
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

/** What git ignores here (.gitignore, and a checkout's own .git/info/exclude: a developer's scratch files) is not the project's source. */
function gitIgnored() {
  try {
    return execFileSync('git', ['ls-files', '--others', '--ignored', '--exclude-standard', '--directory'], { cwd: import.meta.dirname, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
  } catch {
    return []; // not a git checkout (an unpacked tarball): the list below still applies
  }
}

export default defineConfig(
  {
    // Made by a build or generated (`npm run generate`), never edited by hand.
    ignores: ['node_modules/', 'dist/', 'web/dist/', 'src/generated/', 'web/src/gql/', 'examples/api-client/openapi-types.ts', 'test-results/', '.data/', '.tools/', ...gitIgnored()],
  },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        // Three example programs are in no tsconfig (the tests import the rest): typed with the root's options.
        projectService: { allowDefaultProject: ['examples/api-client/demo.ts', 'examples/listen/listen.ts', 'examples/webhook-receiver/server.ts'], defaultProject: 'tsconfig.json' },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Turned down: a leading underscore marks a name kept for its place (a parameter before the
      // one used, an `infer` in a conditional type, a key left out of a rest object).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // Off: `async` with no `await` is how this code implements a Promise-returning interface (a
      // service, a fake, a no-op `next`): it turns a synchronous throw into a rejection, which
      // `Promise.resolve(f())` would not. A forgotten `await` is no-floating-promises' to catch.
      '@typescript-eslint/require-await': 'off',
      // Turned down: a variable that a closure reads before its one later assignment stays `let`
      // (as `const` it would be in its temporal dead zone when the closure runs early).
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // Tests read response bodies as untyped JSON (api()'s body, res.json(), JSON.parse) and
    // compare them with expect(), whose asymmetric matchers (expect.any) are typed `any` too: the
    // assertion is the check, and a declared type would only restate it.
    files: ['test/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['web/src/**/*.tsx'],
    rules: {
      // Turned down for JSX attributes only: an async onPress or onSubmit is how the UI runs a
      // request; React and react-aria ignore the promise, and the handler shows its own failure.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
    },
  },
  {
    // Plain JavaScript (the memory probe, the Prisma stand-in) is in no TypeScript program.
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly', setInterval: 'readonly', console: 'readonly' } },
  },
);
