// ESLint flat config: typescript-eslint's recommended rules, plus the architecture's one arrow of
// dependencies (docs/architecture.md) as `no-restricted-imports`, so a backwards import fails `npm run lint`.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** An import of one of these layers, by a relative path from anywhere in the tree. */
const layer = (...names) => `^(\\.\\./)+(src/)?(${names.join('|')})(/|$)`;

const arrow = (message, ...names) => ({ regex: layer(...names), message });

/** The targets' folders under src/generation, and the engines' under src/runtime (a wing each). */
const TARGET_FOLDERS = ['redis', 'redis-core', 'typescript', 'report'];
const ENGINE_FOLDERS = ['redisearch', 'redis-core', 'redis-connection', 'redis-entities'];

const generationArrow = arrow(
    'src/generation must not import downstream layers.',
    'pipeline',
    'cli',
    'extension',
    'runtime',
);

/**
 * The rules of the front ends (the runtime, the CLI, the API), with `patterns` more: a file's `no-restricted-imports`
 * is that of the last block naming it, so a narrower block repeats the wider one's.
 */
function frontEndRule(...patterns) {
    return {
        'no-restricted-imports': [
            'error',
            {
                paths: [{ name: 'vscode', message: 'only src/extension runs inside VS Code.' }],
                patterns: [
                    arrow('front ends must not import each other (the CLI may call the runtime).', 'extension'),
                    ...patterns,
                ],
            },
        ],
    };
}

/**
 * `no-restricted-imports` checks static imports only: the same arrows as `no-restricted-syntax` on `import()`
 * with a literal path, so that a lazy import cannot run against the arrow either. (esquery's regex literals
 * cannot hold a `/`: it is written `\x2F`.)
 */
function withDynamicImports(config) {
    const patterns = config.rules?.['no-restricted-imports']?.[1]?.patterns ?? [];
    const arrows = patterns.filter((pattern) => pattern.regex !== undefined);
    if (arrows.length === 0) return config;
    const selectors = arrows.map(({ regex, message }) => ({
        selector: `ImportExpression[source.value=/${regex.replaceAll('/', '\\x2F')}/]`,
        message,
    }));
    return { ...config, rules: { ...config.rules, 'no-restricted-syntax': ['error', ...selectors] } };
}

export default defineConfig(
    {
        ignores: [
            'src/language/generated/**',
            'src/generation/generated/**',
            'examples/*/typescript/**',
            'out/**',
            'dist/**',
            'node_modules/**',
            'coverage/**',
            '.kvmod-tmp/**',
            // The entity-store prototype: a record of how the design's figures were made, not maintained code.
            'docs/design/**',
        ],
    },
    js.configs.recommended,
    tseslint.configs.recommended,
    {
        languageOptions: { globals: { ...globals.node } },
        rules: {
            // Escaping helpers (redis-cli quoting, diagnostics from binary input) match control characters on purpose.
            'no-control-regex': 'off',
            '@typescript-eslint/no-unused-vars': [
                'error',
                { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
            ],
        },
    },
    withDynamicImports({
        // The transformations are pure: no file system, no process, no console, no editor, nothing downstream.
        files: ['transformations/**/*.ts'],
        rules: {
            'no-console': 'error',
            'no-restricted-imports': [
                'error',
                {
                    paths: ['fs', 'fs/promises', 'path', 'os', 'child_process', 'process', 'vscode'].map((name) => ({
                        name,
                        message:
                            'transformations/ is pure: no file system, process or editor access (do I/O in src/pipeline).',
                    })),
                    patterns: [
                        {
                            group: ['node:*'],
                            message: 'transformations/ is pure: no Node built-ins (do I/O in src/pipeline).',
                        },
                        arrow(
                            'transformations/ must not import downstream layers.',
                            'generation',
                            'pipeline',
                            'cli',
                            'extension',
                            'runtime',
                        ),
                    ],
                },
            ],
        },
    }),
    withDynamicImports({
        files: ['src/language/**/*.ts'],
        rules: {
            'no-restricted-imports': [
                'error',
                {
                    paths: [{ name: 'vscode', message: 'the language services run outside VS Code too (CLI, tests).' }],
                    patterns: [
                        arrow(
                            'src/language must not import downstream layers.',
                            'transformations',
                            'generation',
                            'pipeline',
                            'cli',
                            'extension',
                            'runtime',
                        ),
                    ],
                },
            ],
        },
    }),
    withDynamicImports({
        files: ['src/generation/**/*.ts'],
        rules: { 'no-restricted-imports': ['error', { patterns: [generationArrow] }] },
    }),
    withDynamicImports({
        // What several targets share (Redis value encoding, escaping, text and number rules) names no target.
        files: ['src/generation/shared/**/*.ts'],
        rules: {
            'no-restricted-imports': [
                'error',
                {
                    patterns: [
                        generationArrow,
                        arrow('src/generation/shared is shared by every target: it imports none.', ...TARGET_FOLDERS),
                    ],
                },
            ],
        },
    }),
    withDynamicImports({
        files: ['src/generation/redis-core/**/*.ts'],
        rules: {
            'no-restricted-imports': [
                'error',
                {
                    patterns: [
                        generationArrow,
                        arrow(
                            'the redis-core target shares with the Redis target only src/generation/shared.',
                            'redis',
                        ),
                    ],
                },
            ],
        },
    }),
    withDynamicImports({
        files: ['src/pipeline/**/*.ts'],
        rules: {
            'no-restricted-imports': [
                'error',
                {
                    paths: [{ name: 'vscode', message: 'the pipeline is shared by every front end.' }],
                    patterns: [arrow('src/pipeline must not import the front ends.', 'cli', 'extension', 'runtime')],
                },
            ],
        },
    }),
    withDynamicImports({
        files: ['src/runtime/**/*.ts', 'src/cli/**/*.ts', 'src/api/**/*.ts'],
        rules: frontEndRule(),
    }),
    withDynamicImports({
        // The engine-neutral runtime reaches an engine through the engine interface only, and a target through
        // the target contract: the registry below is the one module that names the engines.
        files: ['src/runtime/*.ts'],
        ignores: ['src/runtime/engine-registry.ts'],
        rules: frontEndRule(
            {
                regex: `^\\./(${ENGINE_FOLDERS.join('|')})/`,
                message: 'the engine-neutral runtime imports no engine (engine-registry.ts loads them).',
            },
            {
                regex: `^\\.\\./generation/(${TARGET_FOLDERS.join('|')}|shared)/`,
                message: 'the engine-neutral runtime imports no target (it reads designs through the target contract).',
            },
        ),
    }),
    withDynamicImports({
        // The entity operations are the engine-neutral floor the engines' entity stores and the typed client share.
        files: ['src/runtime/entities/**/*.ts'],
        rules: frontEndRule(
            {
                regex: `^\\.\\./(${ENGINE_FOLDERS.join('|')})/`,
                message: 'the entity operations are engine-neutral: they import no engine.',
            },
            {
                regex: `^\\.\\./\\.\\./generation/(${TARGET_FOLDERS.join('|')}|shared)/`,
                message: 'the entity operations are engine-neutral: they import no target.',
            },
        ),
    }),
    // The registry loads each engine lazily (`import()`), never statically: a command that needs no engine loads none.
    {
        files: ['src/runtime/engine-registry.ts'],
        rules: frontEndRule({
            regex: `^\\./(${ENGINE_FOLDERS.join('|')})/`,
            message: 'the engine registry loads the engines lazily, with import().',
        }),
    },
    withDynamicImports({
        files: ['src/runtime/redisearch/**/*.ts'],
        rules: frontEndRule(arrow('an engine imports no other engine.', 'redis-core')),
    }),
    withDynamicImports({
        files: ['src/runtime/redis-core/**/*.ts'],
        rules: frontEndRule(arrow('an engine imports no other engine.', 'redisearch')),
    }),
    withDynamicImports({
        files: ['src/runtime/redis-connection/**/*.ts'],
        rules: frontEndRule(
            arrow('the Redis connection is shared by the engines: it imports none.', 'redisearch', 'redis-core'),
        ),
    }),
    withDynamicImports({
        files: ['src/runtime/redis-entities/**/*.ts'],
        rules: frontEndRule(
            arrow('the entity store is shared by the Redis engines: it imports none.', 'redisearch', 'redis-core'),
        ),
    }),
);
