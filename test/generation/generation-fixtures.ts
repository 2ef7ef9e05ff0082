/**
 * Loading KVLM fixtures for the generation tests, through the same front door the CLI uses.
 */
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KvlmModel } from '../../src/language/generated/ast.js';
import { formatDiagnostic, loadTexts } from '../../src/pipeline/load.js';

/** The repository root. */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The KVLM fixtures of the generator and the KVLM of every example (written by the transformation). */
export const KVLM_MODELS: readonly string[] = [
    'test/fixtures/kvlm/airflights-q4q5.kvlm',
    'test/fixtures/kvlm/redis-edge.kvlm',
    ...readdirSync(join(repoRoot, 'examples'))
        .sort()
        .map((name) => `examples/${name}/${name}.kvlm`)
        .filter((path) => existsSync(join(repoRoot, path))),
];

/** Parses and validates KVLM text; fails the test with the diagnostics when it has errors. */
export async function parseKvlm(text: string, path = 'fixture.kvlm'): Promise<KvlmModel> {
    const workspace = await loadTexts([{ path, text }]);
    if (workspace.hasErrors) throw new Error(workspace.diagnostics.map(formatDiagnostic).join('\n'));
    return workspace.kvlm[0]!.model;
}

/** Loads a fixture file relative to the repository root. */
export async function loadKvlmFile(relativePath: string): Promise<KvlmModel> {
    return parseKvlm(await readFile(new URL(relativePath, `file://${repoRoot}`), 'utf8'), relativePath);
}
