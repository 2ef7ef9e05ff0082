/**
 * Models and checks the entity tests share: a small shop model with every kind of reference and every role of
 * attribute, the examples, random models (src/testing/random-pidm.ts), and the checks `kvmod load` applies to a
 * data file (the instance-data check, then the servable-values screen under the design's text rules).
 */
import type { KvlmModel, PidmModel } from '../../../src/language/generated/ast.js';
import { loadTexts, loadWorkspace } from '../../../src/pipeline/load.js';
import { validateInstanceData, type InstanceData } from '../../../src/runtime/instance-data.js';
import { redisEngine } from '../../../src/runtime/redisearch/redis-engine.js';
import { buildRuntimeModel, type RuntimeModel } from '../../../src/runtime/runtime-model.js';
import { unservableValues, type TextRules } from '../../../src/runtime/servable-values.js';
import { generateRandomPidm } from '../../../src/testing/random-pidm.js';
import { transformPidmToKvlm } from '../../../transformations/pidm-to-kvlm/index.js';

export interface EntityCase {
    name: string;
    model: RuntimeModel;
    design: KvlmModel;
    /** The source model(s): what a design's entity store is built from. */
    pidm: PidmModel[];
}

/** RediSearch 1.2's rules, as `kvmod load` screens values for it. */
export const RS1_RULES: TextRules = redisEngine.textRules({ dialect: 'redisearch1' } as never);

export const SHOP_PIDM = `
entity Book {
  id isbn
  title text
  author text
  rank int
  price float
  blurb text
  ref Tag[*] tags
  ref Publisher[1] publisher
  ref Book[0..1] sequelOf
}

entity Tag {
  id name
  label text
}

entity Publisher {
  id code
  pname text
}

query Q3_booksWithTag:
SELECT isbn, title, author, rank, T.label
FROM Book
INCLUDE Book.tags as T
WHERE T.name = "?tag"
ORDER BY rank DESC

query Q6_booksOfAuthor:
SELECT title, rank, blurb, P.pname
FROM Book
INCLUDE Book.publisher as P
WHERE author = "?" and price < "?"
ORDER BY rank ASC

query Q8_sequels:
SELECT title, S.title
FROM Book
INCLUDE Book.sequelOf as S
WHERE S.isbn = "?"
`;

/** Two publishers, three tags, three books: b1 holds t1 and t2, b2 holds t1, b3 is the sequel of b1. */
export const SHOP_DATA: InstanceData = {
    Publisher: [
        { code: 'ace', pname: 'Ace' },
        { code: 'tor', pname: 'Tor' },
    ],
    Tag: [
        { name: 't1', label: 'SF' },
        { name: 't2', label: 'Classic' },
        { name: 't3', label: 'Unused' },
    ],
    Book: [
        {
            isbn: 'b1',
            title: 'Dune',
            author: 'Herbert',
            rank: 1,
            price: 9.5,
            blurb: 'sand',
            tags: ['t1', 't2'],
            publisher: 'ace',
            sequelOf: null,
        },
        {
            isbn: 'b2',
            title: 'Hyperion',
            author: 'Simmons',
            rank: 2,
            price: 8,
            blurb: 'pilgrims',
            tags: ['t1'],
            publisher: 'tor',
            sequelOf: null,
        },
        {
            isbn: 'b3',
            title: 'Messiah',
            author: 'Herbert',
            rank: 3,
            price: 7.25,
            blurb: 'more sand',
            tags: [],
            publisher: 'ace',
            sequelOf: 'b1',
        },
    ],
};

function fromPidm(name: string, pidm: PidmModel[], keyStrategy: 'natural' | 'counter' = 'natural'): EntityCase {
    return {
        name,
        model: buildRuntimeModel(pidm),
        design: transformPidmToKvlm(pidm, { merge: 'safe', keyStrategy }).model,
        pidm,
    };
}

export async function shopCase(keyStrategy: 'natural' | 'counter' = 'natural'): Promise<EntityCase> {
    const workspace = await loadTexts([{ path: 'shop.pidm', text: SHOP_PIDM }]);
    const errors = workspace.diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
    if (errors.length > 0) throw new Error(errors.map((error) => error.message).join('\n'));
    return fromPidm(
        `shop (${keyStrategy})`,
        workspace.pidm.map((entry) => entry.model),
        keyStrategy,
    );
}

export const EXAMPLES = ['airflights', 'book-ratings', 'tournament'];

export async function exampleCase(name: string, keyStrategy: 'natural' | 'counter' = 'natural'): Promise<EntityCase> {
    const workspace = await loadWorkspace([`examples/${name}/${name}.pidm`]);
    return fromPidm(
        name,
        workspace.pidm.map((entry) => entry.model),
        keyStrategy,
    );
}

export function randomCase(seed: number): EntityCase {
    const pidm = generateRandomPidm({
        queries: 6,
        fieldsPerQuery: 4,
        seed,
        familySize: 2,
        familiesPerRoot: 2,
        grainNoise: 0.5,
    });
    return fromPidm(`random ${seed}`, [pidm]);
}

/** What `kvmod load` refuses in a data file, as lines (empty: it loads). */
export async function loadProblems(model: RuntimeModel, data: InstanceData, rules?: TextRules): Promise<string[]> {
    const problems = await validateInstanceData(model, data);
    if (problems.length > 0 || rules === undefined) return problems;
    return unservableValues(model, data, rules);
}
