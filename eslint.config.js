// The linter `npm test` runs before the tests (after the type checker): ESLint's and
// typescript-eslint's recommended rules over every script of the project.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** The globals of Node that the plain JavaScript files (bin/, scripts/, the worker entry) use. */
const nodeGlobals = { process: 'readonly', console: 'readonly', URL: 'readonly', module: 'writable', require: 'readonly' };

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { files: ['**/*.mjs', '**/*.cjs'], languageOptions: { globals: nodeGlobals } },
  { files: ['**/*.cjs'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // An async listener handed to an emitter or a server (Node's `on`, `createServer`) catches
      // and reports its own failures; a promise where a condition or a void value is expected is
      // still an error.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-non-null-assertion': 'error',
    },
  },
  {
    rules: {
      // A leading underscore names what is left out on purpose (a rest sibling, a skipped argument).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  // Tests and benchmarks read JSON answers whose shape they then assert; a missing value fails
  // them loudly where they use it.
  {
    files: ['tests/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
