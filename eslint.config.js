// ESLint flat config: typescript-eslint's recommended rules, plus the architecture's one arrow of
// dependencies (docs/architecture.md) as `no-restricted-imports`, so a backwards import fails `npm run lint`.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** An import of one of these layers, by a relative path from anywhere in the tree. */
const layer = (...names) => `^(\\.\\./)+(src/)?(${names.join('|')})(/|$)`;

const arrow = (message, ...names) => ({ regex: layer(...names), message });

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
        ignores: ['src/language/generated/**', 'src/generation/generated/**', 'examples/*/typescript/**', 'out/**', 'dist/**', 'node_modules/**', 'coverage/**', '.kvmod-tmp/**'],
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
        rules: {
            'no-restricted-imports': [
                'error',
                {
                    patterns: [
                        arrow(
                            'src/generation must not import downstream layers.',
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
        rules: {
            'no-restricted-imports': [
                'error',
                {
                    paths: [{ name: 'vscode', message: 'only src/extension runs inside VS Code.' }],
                    patterns: [
                        arrow('front ends must not import each other (the CLI may call the runtime).', 'extension'),
                    ],
                },
            ],
        },
    }),
);
