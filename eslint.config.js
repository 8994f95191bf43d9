import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import vue from 'eslint-plugin-vue';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import daemonImports from './scripts/eslint/daemon-imports.mjs';

/** Import direction (docs/STYLE.md#imports): shared → zod only; daemon never imports desktop; the
 * renderer imports the daemon only as types (its AppRouter). Messages of rules that enforce a
 * convention name its section of docs/STYLE.md. */
export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.tools/**', 'desktop/renderer/dist/**', 'test-results/**', 'playwright-report/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^(?!zod$|\\./)', message: 'shared/ imports zod and its own files only (docs/STYLE.md#imports).' }] }],
    },
  },
  {
    // Schema tests beside the code use the shared test fixtures and factories.
    files: ['shared/**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^(?!zod$|vitest$|\\./|\\.\\./\\.\\./test/helpers/)', message: 'shared/ tests import zod, vitest, their own files and test helpers only (docs/STYLE.md#imports).' }] }],
    },
  },
  {
    // Limits and patterns checked after .trim() differ from what the OpenAPI document states on the
    // sent text (schemathesis sent "\t" to `minLength: 1`, and "\f" + 500 characters to `maxLength: 500`).
    files: ['shared/src/**/*.ts', 'daemon/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name=/^(min|max|length|regex)$/] > MemberExpression > CallExpression.object[callee.property.name='trim']",
          message: 'A limit or pattern after .trim() checks other text than the OpenAPI document states: use trimmedText / trimmedNote / trimmedMatch from shared/src/trimmed-text.ts.',
        },
      ],
    },
  },
  {
    files: ['daemon/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ group: ['**/desktop/**'], message: 'The daemon never imports desktop code.' }],
          // Timers go through the clock (see the daemon/src block below).
          paths: ['timers', 'timers/promises', 'node:timers', 'node:timers/promises'].map((name) => ({ name, message: 'Use the injected clock, not Node timers.' })),
        },
      ],
    },
  },
  {
    // Inside the daemon: folders through their index.ts, the store and config.ts below the
    // features (scripts/eslint/daemon-imports.mjs), and no import cycles (docs/STYLE.md#imports:
    // no-cycle's own message cannot be set).
    files: ['daemon/src/**/*.ts'],
    plugins: { 'import-x': importX, 'daemon-imports': daemonImports },
    settings: {
      // no-cycle parses the imported files too: they are TypeScript.
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'daemon/tsconfig.json' })],
    },
    rules: {
      'daemon-imports/folder-boundaries': 'error',
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    // Time goes through the clock (daemon/src/clock.ts), so service tests drive timers with
    // FakeClock. Exceptions: clock.ts itself (the system clock's timers) and tests (a fake
    // slow job may really wait). The store and the SSH client, which are handed no clock, use
    // `systemClock`'s timers by name.
    files: ['daemon/src/**/*.ts'],
    ignores: ['daemon/src/clock.ts', 'daemon/src/**/*.test.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        ...['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval'].map((name) => ({ name, message: 'Use the injected clock (clock.setTimeout/setInterval/sleep), not a raw timer (docs/STYLE.md#time).' })),
      ],
    },
  },
  ...vue.configs['flat/recommended'].map((c) => ({ ...c, files: ['desktop/renderer/**/*.vue'] })),
  {
    files: ['desktop/renderer/**/*.vue'],
    languageOptions: { parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.vue'] } },
    rules: {
      // Prettier-style formatting is not enforced anywhere else either.
      'vue/max-attributes-per-line': 'off',
      'vue/singleline-html-element-content-newline': 'off',
      'vue/multiline-html-element-content-newline': 'off',
      'vue/html-self-closing': 'off',
      'vue/html-indent': 'off',
      'vue/html-closing-bracket-newline': 'off',
    },
  },
  {
    files: ['desktop/renderer/**/*.ts', 'desktop/renderer/**/*.vue'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/daemon/**'], allowTypeImports: true, message: 'The renderer imports the daemon as types only (AppRouter; docs/STYLE.md#imports).' }] },
      ],
    },
  },
  {
    // One data layer: components read and change data through their feature's store, which calls
    // the feature's api module; only api modules call the client.
    files: ['desktop/renderer/**/*.vue'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/daemon/**'], allowTypeImports: true, message: 'The renderer imports the daemon as types only (AppRouter).' },
            { group: ['**/api/trpc'], message: 'Components use their feature store; only *.api.ts modules call the client.' },
            { group: ['**/api/http'], importNames: ['requestJson'], message: 'Components use their feature store; only *.api.ts modules call the daemon.' },
            { group: ['**/composables/useResource'], message: 'Loading state lives in the feature store (useResource inside it).' },
            { group: ['**/*.api'], importNamePattern: 'Api$', message: 'Components use their feature store, not the api module.' },
          ],
        },
      ],
    },
  },
);
