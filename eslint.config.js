import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

// Workflow code is replayed by Temporal and must stay deterministic: no Node built-ins and no I/O libraries.
const ioLibraries = [
  'pg', 'knex', 'objection', 'pgvector', 'koa', 'koa-body', '@koa/router', 'pino', 'pino-pretty', 'stripe',
  '@electric-sql/*', '@temporalio/client', '@temporalio/worker', '@temporalio/activity', 'ajv', 'ajv-formats',
];
const workflowForbidden = [
  ...builtinModules.flatMap((name) => [name, `node:${name}`]),
  ...ioLibraries,
];

// Engines and the dialogue core sit below the HTTP resources, the API kit and the roles (DESIGN section 3).
const workflowsByName = { group: ['**/workflows/*', '**/workflows'], allowTypeImports: true, message: 'Start workflows by name (src/temporal/starters.ts); import their types only.' };
// The engines of DESIGN section 3, and calls/: the bookkeeping of calls that routes, activities and the media role share.
const engineFolders = ['src/knowledge/**', 'src/billing/**', 'src/calls/**', 'src/campaigns/**', 'src/webhooks/**'];
const engineImports = [
  workflowsByName,
  { group: ['**/resources/**', '**/api/**', '**/voice/**', '**/roles/**', '**/simulators/**'], message: 'Engines import nothing from resources/, api/, voice/, roles/ or simulators/ (DESIGN section 3).' },
];
// Providers are adapters at the bottom, beside lib/ and db/: no engine, no request, no role above them. A
// simulator (the sandbox carrier) stands in for the world outside: it talks to Parley over HTTP and the media
// stream, served by the api role with the HTTP kit, and uses no engine, resource or role of Parley's.
const noWorkflowsOrActivities = { group: ['**/workflows/*', '**/workflows', '**/activities/**'], message: 'Providers and simulators know nothing of workflows or activities.' };
const noEngines = { group: ['**/agent/**', '**/knowledge/**', '**/billing/**', '**/calls/**', '**/campaigns/**', '**/webhooks/**'], message: 'Providers and simulators sit below the engines and the dialogue core: they import none of them.' };
const providerImports = [
  noWorkflowsOrActivities,
  noEngines,
  { group: ['**/resources/**', '**/api/**', '**/roles/**', '**/simulators/**'], message: 'Providers import nothing from resources/, api/, roles/ or simulators/ (DESIGN section 3).' },
  { group: ['**/voice/**', '**/voice'], message: 'Providers import nothing from voice/: the audio helpers they share with it are in lib/audio/.' },
];
const simulatorImports = [
  noWorkflowsOrActivities,
  noEngines,
  { group: ['**/resources/**', '**/roles/**'], message: 'A simulator imports nothing from resources/ or roles/: it reaches Parley over HTTP and the media stream.' },
  { group: ['**/voice/**', '**/voice'], message: 'A simulator uses no part of the voice engine: the audio codecs and the resampler it shares are in lib/audio/.' },
];

export default tseslint.config(
  { ignores: ['node_modules/**', '.data/**', '.tools/**', 'coverage/**', 'test-results/**', 'web/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.js'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // The widget is a plain browser script: no types, no Node.
    files: ['web/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { projectService: false, project: false },
      sourceType: 'script',
      globals: {
        window: 'readonly', document: 'readonly', localStorage: 'readonly', fetch: 'readonly', console: 'readonly', TextDecoder: 'readonly', URL: 'readonly',
        navigator: 'readonly', crypto: 'readonly', btoa: 'readonly', atob: 'readonly', WebSocket: 'readonly', AudioContext: 'readonly', AudioWorkletNode: 'readonly', setTimeout: 'readonly',
        setInterval: 'readonly', clearInterval: 'readonly', URLSearchParams: 'readonly',
      },
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: workflowForbidden.filter((name) => !name.includes('*')).map((name) => ({
          name,
          message: 'Workflow code must be deterministic: do side effects in activities/.',
        })),
        patterns: [{ group: workflowForbidden.filter((name) => name.includes('*')), message: 'Workflow code must be deterministic: do side effects in activities/.' }],
      }],
    },
  },
  {
    // The API process starts workflows by name and never loads their code: types only (DESIGN section 3).
    files: ['src/**/*.ts'],
    ignores: [...engineFolders, 'src/agent/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [workflowsByName] }],
    },
  },
  {
    // Engines take data and ports, never requests.
    files: engineFolders,
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: engineImports }],
    },
  },
  {
    // The voice engine sits on the dialogue core and the providers; requests, the API kit and roles stay above it.
    files: ['src/voice/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [
          workflowsByName,
          { group: ['**/resources/**', '**/api/**', '**/roles/**'], message: 'The voice engine imports nothing from resources/, api/ or roles/ (DESIGN section 3).' },
        ],
      }],
    },
  },
  {
    // The dialogue core, like an engine, and more: retrieval reaches it as a port, providers as their types.
    files: ['src/agent/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [
          ...engineImports,
          { group: ['**/knowledge/**'], message: 'The dialogue core searches knowledge through its searchKnowledge port (agent/ports.ts).' },
          { group: ['**/providers/*.ts', '**/providers/*/*', '!**/providers/*/types.ts'], allowTypeImports: true, message: 'The dialogue core takes providers as ports: import their types only.' },
        ],
      }],
    },
  },
  {
    // The HTTP kit is given what it needs (the token resolver, the routes) by the role that builds the app.
    files: ['src/api/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [
          workflowsByName,
          { group: ['**/resources/**', '**/roles/**'], message: 'The HTTP kit imports nothing from resources/ or roles/: the role hands it what it needs (DESIGN section 3).' },
        ],
      }],
    },
  },
  {
    // Activities call the engines; of resources/ they read and write only the models.
    files: ['activities/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [
          { group: ['**/workflows/*', '**/workflows'], message: 'Activities never load workflow code.' },
          { group: ['**/api/**', '**/roles/**', '**/voice/**', '**/simulators/**'], message: 'Activities import nothing from api/, roles/, voice/ or simulators/ (DESIGN section 3).' },
          { group: ['**/resources/*/*', '!**/resources/*/model.ts'], message: 'Activities call the engines: of resources/ they import only models (DESIGN section 3).' },
        ],
      }],
    },
  },
  {
    files: ['src/providers/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: providerImports }],
    },
  },
  {
    files: ['src/simulators/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: simulatorImports }],
    },
  },
  {
    // lib/ is the bottom: errors, money, time, ids, secrets, safe fetch. It imports nothing else of src/.
    files: ['src/lib/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [{ regex: '^\\.\\./', message: 'lib/ imports nothing from the rest of src/ (DESIGN section 3): take what it needs as arguments.' }],
      }],
    },
  },
  {
    // A folder two deep in lib/ (lib/languages/reading/) takes its parent folder's types; still nothing above lib/.
    files: ['src/lib/*/*/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [{ regex: '^(\\.\\./){3}', message: 'lib/ imports nothing from the rest of src/ (DESIGN section 3): take what it needs as arguments.' }],
      }],
    },
  },
  {
    // Reading the environment is pure: config.ts uses its own config/ folder and lib/, nothing above them.
    files: ['src/config.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [{ regex: '^\\.(?!/(config|lib)/)', message: 'config.ts imports only its config/ folder and lib/.' }],
      }],
    },
  },
  {
    files: ['src/config/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [{ regex: '^\\.\\./(?!lib/)', message: 'The config/ folder imports only its own files and lib/.' }],
      }],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Tests read JSON responses whose shape each assertion states.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
