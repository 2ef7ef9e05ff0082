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
