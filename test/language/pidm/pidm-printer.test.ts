import { describe, expect, test } from '@jest/globals';
import { printPidm } from '../../../src/language/pidm/pidm-printer.js';
import { generateGridPidm, generateRandomPidm } from '../../../src/testing/random-pidm.js';
import { loadTexts } from '../../../src/pipeline/load.js';
import type { PidmModel } from '../../../src/language/generated/ast.js';

/** Parses PIDM text alone; the test fails on any error. */
async function parse(text: string, path = 'printed.pidm'): Promise<PidmModel> {
    const loaded = await loadTexts([{ path, text }]);
    expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    return loaded.pidm[0].model;
}

describe('printPidm', () => {
    test('a grid model prints as the issue-14 shape and parses back to the same text', async () => {
        const text = printPidm(
            generateGridPidm({ queries: 2, fieldsPerQuery: 3, seed: 1, entities: 3, attributesPerEntity: 4 }),
        );
        expect(text.split('\n').slice(0, 8)).toEqual([
            'entity E0 {',
            '  id k text unique',
            '  a0 text',
            '  a1 int',
            '  a2 date',
            '  a3 float',
            '  ref E1[1] next',
            '}',
        ]);
        const query = text.slice(text.indexOf('query Q0:'), text.indexOf('query Q1:'));
        expect(query).toMatch(
            /^query Q0:\nSELECT (E[0-2]\.a[0-3]),\n {2}(E[0-2]\.a[0-3]),\n {2}E[0-2]\.a[0-3]\nFROM E0\nINCLUDE E0\.next AS E1,\n {2}E1\.next AS E2\nWHERE \1 = "\?"\nORDER BY \2 ASC\n\n$/,
        );
        expect(printPidm(await parse(text))).toBe(text);
    });

    test('random models (references of every cardinality, aliases, ranges, numbers) parse back to the same text', async () => {
        for (let seed = 0; seed < 6; seed++) {
            const text = printPidm(generateRandomPidm({ queries: 12, fieldsPerQuery: 6, seed, grainNoise: 0.5 }));
            expect(printPidm(await parse(text))).toBe(text);
        }
    });

    test('filters keep their meaning: parentheses where precedence needs them, and only there', async () => {
        const source = `entity A {
  id k
  x int
  y text
  ref A[0..1] parent
}
query Q: SELECT x FROM A AS T INCLUDE T.parent AS P WHERE not (x = 1 or y != 'it''s') and (x < -2 or P.y = "?p") and (x >= 3 and y <> "a\\"b") or not x > 0.5
order by x desc, P.y
`.replace("'it''s'", '"it\'s"');
        const printed = printPidm(await parse(source));
        expect(printed).toContain(
            `WHERE not (x = 1 or y != "it's") and (x < -2 or P.y = "?p") and (x >= 3 and y <> "a\\"b") or not x > 0.5\nORDER BY x DESC, P.y\n`,
        );
        expect(printed).toContain('FROM A AS T\nINCLUDE T.parent AS P\n');
        expect(printPidm(await parse(printed))).toBe(printed);
    });
});
