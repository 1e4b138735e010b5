import js from '@eslint/js';
import pluginQuery from '@tanstack/eslint-plugin-query';
import boundaries from 'eslint-plugin-boundaries';
import checkFile from 'eslint-plugin-check-file';
import compat from 'eslint-plugin-compat';
import esX from 'eslint-plugin-es-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import jsxA11y from 'eslint-plugin-jsx-a11y';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Code that runs in a visitor's browser. */
const BROWSER_CODE = [
  'src/**/*.{ts,tsx}',
  'machines/**/*.ts',
  'config/{media-layout,paths,field-report-limits}.ts',
];

/** ES2022 syntax that Safari 15 and Chrome 90 already run. */
const FLOOR_HAS = [
  'es-x/no-class-instance-fields',
  'es-x/no-class-static-fields',
  'es-x/no-class-private-fields',
];
/** ES2022 and later, less the iterator helpers, which the aggressive mode sees in every `.map`. */
const newerThanTheFloor = Object.fromEntries(
  ['2022', '2023', '2024', 'next']
    .flatMap((edition) => Object.entries(esX.configs[`flat/no-new-in-es${edition}`].rules))
    .filter(([rule]) => !rule.includes('iterator-prototype') && !FLOOR_HAS.includes(rule)),
);

export default tseslint.config(
  {
    ignores: [
      'node_modules',
      'dist',
      'dist-server',
      'reports',
      'test-results',
      'playwright-report',
      'bench-results',
      '.stryker-tmp',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.{ts,tsx}', 'tests/app/**/*.{ts,tsx}'],
    ...jsxA11y.flatConfigs.recommended,
  },
  {
    files: ['src/**/*.{ts,tsx}', 'tests/app/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  ...pluginQuery.configs['flat/recommended'],
  {
    // What runs in a visitor's browser must run on the declared floor (package.json's
    // browserslist; docs/browsers.md says why): an API newer than it fails the lint.
    files: BROWSER_CODE,
    ...compat.configs['flat/recommended'],
  },
  {
    // eslint-plugin-compat's data cannot see a method on a variable (`cues.findLastIndex`) nor
    // the newer AbortSignal helpers: these name what the floor (Safari 15, Chrome 90) lacks.
    files: BROWSER_CODE,
    plugins: { 'es-x': esX },
    settings: { 'es-x': { aggressive: true } },
    rules: {
      ...newerThanTheFloor,
      'no-restricted-properties': [
        'error',
        { object: 'AbortSignal', property: 'timeout', message: 'Safari 16+: use timeoutSignal().' },
        { object: 'AbortSignal', property: 'any', message: 'Safari 17.4+: use timeoutSignal().' },
      ],
    },
  },
  {
    // The machine is pure: no DOM, no React, no network.
    files: ['machines/**/*.ts'],
    languageOptions: { globals: {} },
    rules: {
      'no-restricted-globals': ['error', 'window', 'document', 'localStorage', 'fetch'],
    },
  },
  {
    // The video's start (src/video-start/) runs before React, in the boot script: nothing of
    // React, and from the rest of src/ only the plain helpers it names.
    files: ['src/video-start/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['react', 'react-*', 'react/*', '@xstate/react', '@tanstack/*'],
              message: 'The start runs before React: the boot script bundles it.',
            },
            {
              regex:
                '^\\.\\./(?!\\.\\./)(?!(screens/video-player/(media-support|quality|resume-position)|api/timeout-signal|offline/download-store)$)',
              message:
                'The start imports its own folder, config/, machines/ and plain helpers only.',
            },
          ],
        },
      ],
    },
  },
  {
    // The rest of src/ uses the start through its hand-off (video-start.ts), its types
    // (contract.ts) and hls.js's chunk; its parts are its own business.
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['src/video-start/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: 'video-start/(?!(video-start|contract|adaptive-player)$)',
              message: 'Use the start through video-start.ts, contract.ts or adaptive-player.ts.',
            },
          ],
        },
      ],
    },
  },
  {
    // The folders are the architecture: imports go one way only. machines/ is pure and stands
    // alone; config/ (the settings table) sits under the app and the server; the app and the
    // server never import each other; the model library serves the tests, e2e and test:paths;
    // the bench uses all but the tests, and nothing uses the bench (what the tests share with it
    // is in scripts/test-support).
    files: ['**/*.{ts,tsx,js,mjs}'],
    plugins: { boundaries },
    settings: {
      'import/resolver': {
        typescript: {
          project: ['tsconfig.json', 'tsconfig.server.json'],
          noWarnOnMultipleProjects: true,
        },
      },
      'boundaries/include': [
        'machines/**',
        'config/**',
        'src/**',
        'server/**',
        'scripts/**',
        'tests/**',
        'e2e/**',
        '*.ts',
      ],
      'boundaries/elements': [
        { type: 'machines', pattern: 'machines/**', partialMatch: false },
        { type: 'config', pattern: 'config/**', partialMatch: false },
        { type: 'app', pattern: 'src/**', partialMatch: false },
        { type: 'server', pattern: 'server/**', partialMatch: false },
        { type: 'model', pattern: 'tests/model/**', partialMatch: false },
        { type: 'tests', pattern: ['tests/**', 'e2e/**'], partialMatch: false },
        { type: 'bench', pattern: 'scripts/bench/**', partialMatch: false },
        { type: 'tooling', pattern: 'scripts/**', partialMatch: false },
      ],
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'disallow',
          policies: [
            {
              from: { element: { type: 'machines' } },
              allow: { to: { element: { type: 'machines' } } },
            },
            {
              from: { element: { type: 'config' } },
              allow: { to: { element: { types: { anyOf: ['config', 'machines'] } } } },
            },
            {
              from: { element: { type: 'app' } },
              allow: { to: { element: { types: { anyOf: ['app', 'config', 'machines'] } } } },
            },
            {
              from: { element: { type: 'server' } },
              allow: { to: { element: { types: { anyOf: ['server', 'config', 'machines'] } } } },
            },
            {
              from: { element: { type: 'model' } },
              allow: { to: { element: { types: { anyOf: ['model', 'machines'] } } } },
            },
            {
              from: { element: { types: { anyOf: ['tests', 'tooling'] } } },
              allow: {
                to: {
                  element: {
                    types: {
                      anyOf: ['machines', 'config', 'app', 'server', 'model', 'tests', 'tooling'],
                    },
                  },
                },
              },
            },
            {
              from: { element: { type: 'bench' } },
              allow: {
                to: {
                  element: {
                    types: { anyOf: ['machines', 'config', 'app', 'server', 'tooling', 'bench'] },
                  },
                },
              },
            },
          ],
        },
      ],
    },
  },
  {
    // No import circles anywhere: a circle is two files that are one concern. The rule does not
    // follow type-only imports (it has no option to), which vanish from the built code.
    files: ['**/*.{ts,tsx,js,mjs}'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/resolver-next': [
        createTypeScriptImportResolver({
          project: ['tsconfig.json', 'tsconfig.server.json'],
          noWarnOnMultipleProjects: true,
        }),
      ],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    // One naming convention: kebab-case files and folders (a test's `.test`/`.spec`/`.paths` parts
    // are middle extensions).
    files: ['{machines,config,src,server,scripts,tests,e2e}/**/*.{ts,tsx,js,mjs}'],
    plugins: { 'check-file': checkFile },
    rules: {
      'check-file/filename-naming-convention': [
        'error',
        { '**/*.{ts,tsx,js,mjs}': 'KEBAB_CASE' },
        { ignoreMiddleExtensions: true },
      ],
      'check-file/folder-naming-convention': ['error', { '**/': 'KEBAB_CASE' }],
    },
  },
);
