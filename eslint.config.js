// ESLint (flat config): ESLint's recommended rules and typescript-eslint's recommended type-aware
// rules over every source file, with type information from the TypeScript programs
// (tsconfig.json, web/tsconfig.json) through the project service.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    ignores: ['node_modules/', 'dist/', 'web/dist/', 'src/generated/', 'web/src/gql/', 'examples/api-client/openapi-types.ts', 'test-results/', '.data/', '.tools/'],
  },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: ['examples/*/*.ts'],
          defaultProject: 'tsconfig.json',
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
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
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
