/**
 * A KVLM model is checked against the PIDM its `source` names: root entities, included references (target
 * and cardinality), field attributes and types. The examples' KVLM pass; each kind of hand edit is an
 * error with its code and a did-you-mean, also when the KVLM is validated without its PIDM being named.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { printPidm } from '../../../src/language/pidm/pidm-printer.js';
import { loadWorkspace, type KvmodDiagnostic } from '../../../src/pipeline/load.js';
import { transformFiles } from '../../../src/pipeline/transform.js';
import { generateGridPidm, generateRandomPidm } from '../../../src/testing/random-pidm.js';

const KVLM = readFileSync('examples/airflights/airflights.kvlm', 'utf8');
let dir: string;

beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'kvmod-kvlm-source-'));
    writeFileSync(join(dir, 'airflights.pidm'), readFileSync('examples/airflights/airflights.pidm', 'utf8'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function errorsOf(text: string): Promise<Pick<KvmodDiagnostic, 'code' | 'message'>[]> {
    const path = join(dir, 'edited.kvlm');
    writeFileSync(path, text);
    const workspace = await loadWorkspace([path]);
    return workspace.diagnostics.filter((d) => d.severity === 'error').map(({ code, message }) => ({ code, message }));
}

describe('KVLM checked against its source PIDM', () => {
    it.each(['airflights', 'book-ratings', 'tournament'])('finds nothing to say about the %s example', async (name) => {
        const workspace = await loadWorkspace([`examples/${name}/${name}.kvlm`]);
        expect(workspace.diagnostics.filter((d) => d.code.startsWith('kvlm.source-'))).toEqual([]);
    });

    // The property the in-memory check of a transformation's output relies on (it does not compare the KVLM with the
    // PIDM it was just built from: `markBuiltFromSource`): the printed KVLM, loaded beside its PIDM, agrees with it.
    it.each([
        ['random 40 × 12, seed 3', () => generateRandomPidm({ queries: 40, fieldsPerQuery: 12, seed: 3 })],
        [
            'random 60 × 20 with chains, seed 11',
            () => generateRandomPidm({ queries: 60, fieldsPerQuery: 20, seed: 11, chain: true, grainNoise: 0.5 }),
        ],
        ['grid 20 × 40, seed 5', () => generateGridPidm({ queries: 20, fieldsPerQuery: 40, seed: 5 })],
    ])("a transformation's printed KVLM agrees with its source PIDM (%s)", async (_label, model) => {
        const pidmPath = join(dir, 'round-trip.pidm');
        writeFileSync(pidmPath, printPidm(model()));
        const transformed = await transformFiles([pidmPath]);
        expect(transformed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        const kvlmPath = join(dir, 'round-trip.kvlm');
        writeFileSync(kvlmPath, transformed.kvlmText!);
        const workspace = await loadWorkspace([pidmPath, kvlmPath]);
        expect(workspace.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        // The check ran: the KVLM names this PIDM as its source and the workspace holds it.
        expect(transformed.kvlmText).toContain('round-trip.pidm');
    });

    it('warns on the source line when the source file does not exist', async () => {
        const path = join(dir, 'orphan.kvlm');
        writeFileSync(path, KVLM.replace('source "airflights.pidm"', 'source "nowhere.pidm"'));
        const workspace = await loadWorkspace([path]);
        expect(workspace.hasErrors).toBe(false);
        expect(workspace.diagnostics).toEqual([
            expect.objectContaining({
                path,
                line: 2,
                column: 8,
                severity: 'warning',
                code: 'kvlm.source-missing',
                message: `The source file 'nowhere.pidm' does not exist (looked for ${join(dir, 'nowhere.pidm')}): the collections are not checked against a PIDM model, and load and verify need it.`,
            }),
        ]);
    });

    it('reports an attribute the entity does not have, with a did-you-mean', async () => {
        expect(await errorsOf(KVLM.replace('= Aircraft.capacity label', '= Aircraft.capacityy label'))).toEqual([
            {
                code: 'kvlm.source-unknown-attribute',
                message: "Entity Aircraft of airflights.pidm has no attribute 'capacityy'. Did you mean 'capacity'?",
            },
        ]);
    });

    it('reports a field whose type is not the attribute type', async () => {
        expect(await errorsOf(KVLM.replace('field capacity: int', 'field capacity: text'))).toEqual([
            expect.objectContaining({
                code: 'kvlm.source-type-mismatch',
                message: "Field 'capacity' is text, but Aircraft.capacity of airflights.pidm is int.",
            }),
        ]);
    });

    it('reports a root entity the PIDM does not declare', async () => {
        const errors = await errorsOf(KVLM.replace('from Aircraft as Aircraft', 'from Aircraf as Aircraft'));
        expect(errors).toEqual([
            {
                code: 'kvlm.source-unknown-entity',
                message: "Entity 'Aircraf' is not declared in airflights.pidm. Did you mean 'Aircraft'?",
            },
        ]);
    });

    it('reports an included reference the parent entity does not have, or with another cardinality', async () => {
        const include = /include (\w+) = (\w+)\.(\w+) -> (\w+) (\w+)/.exec(KVLM)!;
        const [line, , , reference, , cardinality] = include;
        const renamed = await errorsOf(KVLM.replace(line, line.replace(`.${reference} `, `.${reference}x `)));
        expect(renamed[0]).toEqual(expect.objectContaining({ code: 'kvlm.source-unknown-reference' }));
        expect(renamed[0].message).toContain(`has no reference '${reference}x'. Did you mean '${reference}'?`);
        const other = cardinality === 'many' ? 'one' : 'many';
        const recounted = await errorsOf(KVLM.replace(line, line.replace(new RegExp(` ${cardinality}$`), ` ${other}`)));
        expect(recounted).toEqual([expect.objectContaining({ code: 'kvlm.source-unknown-reference' })]);
        expect(recounted[0].message).toMatch(new RegExp(`is ${cardinality}, not ${other}\\.$`));
    });
});
