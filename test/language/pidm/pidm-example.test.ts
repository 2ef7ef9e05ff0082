import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { isAttribute, isReference } from '../../../src/language/generated/ast.js';
import { errors, issueList, validatePidm } from './pidm-test-helpers.js';

const example = readFileSync('examples/airflights/airflights.pidm', 'utf8');
const readme = readFileSync('examples/airflights/README.md', 'utf8');

/** The rows of the README's "Expected diagnostics" table as `line:col severity code`. */
function documentedDiagnostics(): string[] {
    return [...readme.matchAll(/^\| (\d+:\d+) \| (error|warning|info) \| (pidm\.[a-z-]+) \|/gm)].map(
        ([, position, severity, code]) => `${position} ${severity} ${code}`,
    );
}

describe('the airflights example', () => {
    test('validates without errors', async () => {
        const document = await validatePidm(example);
        expect(errors(document).map((d) => d.message)).toEqual([]);
    });

    test('reports exactly the diagnostics its README lists, at the listed positions', async () => {
        const document = await validatePidm(example);
        expect(documentedDiagnostics().length).toBeGreaterThan(0);
        expect(issueList(document)).toEqual(documentedDiagnostics());
    });

    test('the case slips of Figure 6 resolve to the declared attributes and references', async () => {
        const document = await validatePidm(example);
        const q4 = document.parseResult.value.queries.find((q) => q.name.startsWith('Q4'))!;
        const origin = q4.includes[1].path.segments[2].element;
        expect(origin.$refText).toBe('Origin');
        expect(isReference(origin.ref) && origin.ref.name).toBe('origin');
        const firstName = q4.projections.find((p) => p.path.segments[0].element.$refText === 'firstName')!;
        const attribute = firstName.path.segments[0].element.ref;
        expect(isAttribute(attribute) && attribute.name).toBe('firstname');
    });
});
