/**
 * The architecture's one arrow of dependencies (docs/architecture.md), as the lint config holds it: an import against
 * the arrow fails `npm run lint`, a lazy `import()` as much as a static one, and the config exempts nothing.
 */
import { describe, expect, test } from '@jest/globals';
import { ESLint } from 'eslint';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../cli/run-kvmod.js';

/** The rule ids the lint reports for `code` placed at `file`. */
async function lint(file: string, code: string): Promise<string[]> {
    const eslint = new ESLint({ cwd: REPO_ROOT });
    const [result] = await eslint.lintText(code, { filePath: join(REPO_ROOT, file) });
    return result.messages.map((message) => `${message.ruleId}: ${message.message}`);
}

describe('the layer arrow', () => {
    test('an import of a downstream layer fails, static or lazy; downstream imports of upstream layers pass', async () => {
        expect(await lint('src/generation/x.ts', "export { f } from '../runtime/engine.js';\n")).toEqual([
            "no-restricted-imports: '../runtime/engine.js' import is restricted from being used by a pattern. src/generation must not import downstream layers.",
        ]);
        expect(await lint('src/generation/x.ts', "export const f = () => import('../runtime/engine.js');\n")).toEqual([
            'no-restricted-syntax: src/generation must not import downstream layers.',
        ]);
        expect(await lint('src/pipeline/x.ts', "export const f = () => import('../../src/cli/main.js');\n")).toEqual([
            'no-restricted-syntax: src/pipeline must not import the front ends.',
        ]);
        expect(
            await lint('src/runtime/x.ts', "export const f = () => import('../generation/generation-targets.js');\n"),
        ).toEqual([]);
    });

    test('the engines keep to their wings and the targets share only src/generation/shared', async () => {
        const restricted = (specifier: string, message: string) =>
            `no-restricted-imports: '${specifier}' import is restricted from being used by a pattern. ${message}`;
        const engineNeutral = 'the engine-neutral runtime imports no engine (engine-registry.ts loads them).';
        expect(await lint('src/runtime/x.ts', "export { f } from './redisearch/redis-loader.js';\n")).toEqual([
            restricted('./redisearch/redis-loader.js', engineNeutral),
        ]);
        expect(
            await lint('src/runtime/x.ts', "export const f = () => import('./redis-core/core-runtime.js');\n"),
        ).toEqual([`no-restricted-syntax: ${engineNeutral}`]);
        expect(await lint('src/runtime/x.ts', "export { f } from '../generation/shared/redis-encoding.js';\n")).toEqual(
            [
                restricted(
                    '../generation/shared/redis-encoding.js',
                    'the engine-neutral runtime imports no target (it reads designs through the target contract).',
                ),
            ],
        );
        // The entity operations (src/runtime/entities) are as engine-neutral as the runtime's own files.
        expect(await lint('src/runtime/entities/x.ts', "export { f } from '../redis-core/core-runtime.js';\n")).toEqual(
            [
                restricted(
                    '../redis-core/core-runtime.js',
                    'the entity operations are engine-neutral: they import no engine.',
                ),
            ],
        );
        expect(
            await lint(
                'src/runtime/entities/x.ts',
                "export const f = () => import('../redisearch/redis-engine.js');\n",
            ),
        ).toEqual(['no-restricted-syntax: the entity operations are engine-neutral: they import no engine.']);
        expect(
            await lint(
                'src/runtime/entities/x.ts',
                "export { f } from '../../generation/shared/redis-text-rules.js';\n",
            ),
        ).toEqual([
            restricted(
                '../../generation/shared/redis-text-rules.js',
                'the entity operations are engine-neutral: they import no target.',
            ),
        ]);
        expect(await lint('src/runtime/entities/x.ts', "export { f } from '../materialize.js';\n")).toEqual([]);
        // The registry names the engines, lazily only.
        expect(
            await lint(
                'src/runtime/engine-registry.ts',
                "export const f = () => import('./redisearch/redis-engine.js');\n",
            ),
        ).toEqual([]);
        expect(
            await lint('src/runtime/engine-registry.ts', "export { f } from './redisearch/redis-engine.js';\n"),
        ).toEqual([
            restricted('./redisearch/redis-engine.js', 'the engine registry loads the engines lazily, with import().'),
        ]);
        expect(
            await lint('src/runtime/redis-core/x.ts', "export { f } from '../redisearch/redis-loader.js';\n"),
        ).toEqual([restricted('../redisearch/redis-loader.js', 'an engine imports no other engine.')]);
        expect(
            await lint(
                'src/runtime/redisearch/migration/x.ts',
                "export { f } from '../../redis-core/core-engine.js';\n",
            ),
        ).toEqual([restricted('../../redis-core/core-engine.js', 'an engine imports no other engine.')]);
        expect(
            await lint('src/runtime/redis-connection/x.ts', "export { f } from '../redisearch/redis-query.js';\n"),
        ).toEqual([
            restricted(
                '../redisearch/redis-query.js',
                'the Redis connection is shared by the engines: it imports none.',
            ),
        ]);
        expect(
            await lint('src/runtime/redis-core/x.ts', "export { f } from '../redis-connection/redis-link.js';\n"),
        ).toEqual([]);
        expect(await lint('src/generation/shared/x.ts', "export { f } from '../redis/redis-commands.js';\n")).toEqual([
            restricted(
                '../redis/redis-commands.js',
                'src/generation/shared is shared by every target: it imports none.',
            ),
        ]);
        expect(
            await lint('src/generation/redis-core/x.ts', "export { f } from '../redis/redis-commands.js';\n"),
        ).toEqual([
            restricted(
                '../redis/redis-commands.js',
                'the redis-core target shares with the Redis target only src/generation/shared.',
            ),
        ]);
        expect(
            await lint('src/generation/redis-core/x.ts', "export { f } from '../shared/redis-encoding.js';\n"),
        ).toEqual([]);
        // A narrower block keeps the wider block's arrows.
        expect(await lint('src/generation/shared/x.ts', "export { f } from '../../runtime/engine.js';\n")).toEqual([
            restricted('../../runtime/engine.js', 'src/generation must not import downstream layers.'),
        ]);
        expect(await lint('src/runtime/redisearch/x.ts', "export { f } from '../../extension/main.js';\n")).toEqual([
            restricted(
                '../../extension/main.js',
                'front ends must not import each other (the CLI may call the runtime).',
            ),
        ]);
    });

    test('nothing is exempt: the config turns no arrow off, and no source disables it', () => {
        const config = readFileSync(join(REPO_ROOT, 'eslint.config.js'), 'utf8');
        expect(config).not.toMatch(/'no-restricted-(imports|syntax)':\s*['"]off['"]/);
        const disabled = ['src', 'transformations'].flatMap((folder) =>
            readdirSync(join(REPO_ROOT, folder), { recursive: true, encoding: 'utf8' })
                .filter((file) => file.endsWith('.ts') && !file.includes('generated'))
                .filter((file) =>
                    /eslint-disable[^\n]*no-restricted-(imports|syntax)/.test(
                        readFileSync(join(REPO_ROOT, folder, file), 'utf8'),
                    ),
                )
                .map((file) => join(folder, file)),
        );
        expect(disabled).toEqual([]);
    });
});
