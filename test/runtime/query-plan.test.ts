import { describe, expect, test } from '@jest/globals';
import { transformPidmToKvlm } from '../../transformations/pidm-to-kvlm/index.js';
import { loadTexts } from '../../src/pipeline/load.js';
import { planQuery } from '../../src/runtime/query-plan.js';

const MODEL = `
entity Book {
  id isbn unique
  title text
  price int
  listPrice int
  published date
}
query Q_named: SELECT title FROM Book WHERE price >= "?low" and listPrice >= "?low"
query Q_anonymous: SELECT title FROM Book WHERE price >= "?" and price <= "?"
query Q_typeClash: SELECT title FROM Book WHERE price = "?x" or published = "?x" or title = "?price"
`;

describe('the oracle names query parameters as the KVLM design does', () => {
    test('a named parameter compared twice is one parameter; anonymous ones and type clashes get _2', async () => {
        const workspace = await loadTexts([{ path: 'params.pidm', text: MODEL }]);
        // A type clash is an error for the modeler (pidm.parameter-type-conflict); design and oracle still name it alike.
        expect(workspace.diagnostics.filter((d) => d.severity === 'error').map((d) => d.code)).toEqual([
            'pidm.parameter-type-conflict',
        ]);
        const model = workspace.pidm[0].model;
        const kvlm = transformPidmToKvlm([model], { merge: 'none' }).model;
        const designParams = Object.fromEntries(
            kvlm.collections.flatMap((c) => c.queries.map((q) => [q.name, q.params.map((p) => `${p.name}:${p.type}`)])),
        );
        const oracleParams = Object.fromEntries(
            model.queries.map((q) => [q.name, planQuery(q).parameters.map((p) => `${p.name}:${p.type}`)]),
        );
        expect(oracleParams).toEqual({
            Q_named: ['low:int'],
            Q_anonymous: ['price:int', 'price_2:int'],
            Q_typeClash: ['x:int', 'x_2:date', 'price:text'],
        });
        expect(designParams).toEqual(oracleParams);
    });
});
