/**
 * A KVLM model is checked against the PIDM its `source` names: root entities, included references (target
 * and cardinality), field attributes and types. The examples' KVLM pass; each kind of hand edit is an
 * error with its code and a did-you-mean, also when the KVLM is validated without its PIDM being named.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadWorkspace, type KvmodDiagnostic } from '../../../src/pipeline/load.js';

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
