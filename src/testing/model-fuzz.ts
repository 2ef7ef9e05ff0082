/**
 * Fuzzing the model loaders: seeded mutations of the examples (byte flips, truncation, inserted tokens,
 * deleted and duplicated text) of both languages, each loaded in memory. Whatever the text, loading must
 * end in diagnostics: no exception, no `internal.*` diagnostic (a crashed check), no message that prints
 * `undefined` for a name; a mutant without errors must also transform (PIDM) or generate (KVLM) without a
 * crash. Shared by the CI test (a few thousand mutants) and `npm run fuzz` (as many as asked).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GenerationError } from '../generation/generation-errors.js';
import { generateFromKvlm, KvmodError, loadTexts, transformFiles, type KvmodDiagnostic } from '../pipeline/index.js';
import { createRandom } from './random-pidm.js';

/** A language the loaders read. */
export type FuzzLanguage = 'pidm' | 'kvlm';

/** Tokens inserted into PIDM mutants: keywords, punctuation, names of the example, hostile characters. */
const PIDM_TOKENS = [
    'entity',
    'query',
    'SELECT',
    'FROM',
    'INCLUDE',
    'WHERE',
    'ORDER BY',
    'AS',
    'and',
    'or',
    'not',
    'ref',
    'id',
    'unique',
    '[*]',
    '[0..1]',
    '"?"',
    '"?x"',
    'text',
    'date',
    'Flight',
    'FL',
    'Passenger.flights',
    'Origin.city',
];

/** Tokens inserted into KVLM mutants: its keywords, names of the example, the shapes of its clauses. */
const KVLM_TOKENS = [
    'database',
    'source',
    'merge',
    'safe',
    'threshold',
    'collection',
    'key',
    'natural',
    'counter',
    'from',
    'include',
    'field',
    'label',
    'indexed',
    'projected',
    'filtered',
    'ranged',
    'sorted',
    'query',
    'param',
    'where',
    'order by',
    'select',
    'as',
    'asc',
    'desc',
    'many',
    'one',
    'optional',
    '->',
    '?',
    '?username',
    'text',
    'int',
    'datetime',
    'Player',
    'Player.username',
    'G.code',
    'Q1_playerOverview',
    'username',
    'projected(Q1_playerOverview)',
    'natural(Player.username,',
    'field x: text = Player.username',
    'query Q { }',
];

/** Tokens common to both: punctuation, numbers, comments, quotes and characters that break naive code. */
const COMMON_TOKENS = [
    '{',
    '}',
    '(',
    ')',
    '[',
    ']',
    ',',
    '.',
    ':',
    '=',
    '!=',
    '<>',
    '<=',
    '>=',
    '"',
    "'",
    '/*',
    '*/',
    '//',
    '-',
    '1.5',
    '99999999999999999999',
    '\u0000',
    '\uFFFD',
    '\u202E',
    '\r',
    '\t',
    'é',
    '🛫',
];

/** The examples mutated for each language (paths from the repository root). */
export const FUZZ_SOURCES: Record<FuzzLanguage, readonly string[]> = {
    pidm: ['examples/airflights/airflights.pidm', 'examples/tournament/tournament.pidm'],
    kvlm: [
        'examples/airflights/airflights.kvlm',
        'examples/tournament/tournament.kvlm',
        'examples/book-ratings/book-ratings.kvlm',
    ],
};

/**
 * Texts that once crashed a loader or printed `undefined`, checked before the mutants of their language. The
 * first KVLM one is issue 13's reproduction: recovery left a field without a name, and the did-you-mean hint
 * read its name.
 */
export const FUZZ_FIXED_CASES: Record<FuzzLanguage, readonly string[]> = {
    // From the first 10,000-mutant run: an `id` without its name, a query without its name.
    pidm: [
        'entity Passenger {\n  id idPassport unique\n  firstname text\n id }\n\nquery Q: SELECT firstname FROM Passenger\n',
        'entity Passenger {\n  id idPassport unique\n  ref Flight[*] flights\n}\nentity Flight {\n  id code\n}\nquery\nSELECT Origin.city\nFROM Passenger\n',
    ],
    kvlm: [
        'tournament\ncollection {\nQ1_playerOverview_id natural(Player.username,\nprojected(Q1_playerOverview) filtered(Q1_playerOverview)\n',
    ],
};

/** One mutated copy of `source`: 1–4 random edits drawn from `next`. */
export function mutateModel(source: string, language: FuzzLanguage, next: () => number): string {
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const tokens = [...(language === 'pidm' ? PIDM_TOKENS : KVLM_TOKENS), ...COMMON_TOKENS];
    let text = source;
    const edits = 1 + Math.floor(next() * 4);
    for (let e = 0; e < edits; e++) {
        const at = Math.floor(next() * (text.length + 1));
        switch (pick(['flip', 'truncate', 'insert', 'delete', 'delete-line', 'duplicate'] as const)) {
            case 'flip': {
                const bytes = Buffer.from(text, 'utf8');
                for (let i = 0; i < 1 + next() * 8; i++)
                    bytes[Math.floor(next() * bytes.length)] = Math.floor(next() * 256);
                text = bytes.toString('utf8');
                break;
            }
            case 'truncate':
                text = text.slice(0, at);
                break;
            case 'insert':
                text = `${text.slice(0, at)} ${pick(tokens)} ${text.slice(at)}`;
                break;
            case 'delete':
                // A few words: what parser recovery handles worst is a clause cut in the middle.
                text = text.slice(0, at) + text.slice(at + 1 + Math.floor(next() * 40));
                break;
            case 'delete-line': {
                const lines = text.split('\n');
                lines.splice(Math.floor(next() * lines.length), 1 + Math.floor(next() * 3));
                text = lines.join('\n');
                break;
            }
            case 'duplicate':
                text = `${text.slice(0, at)}${text.slice(Math.max(0, at - 200), at)}${text.slice(at)}`;
                break;
        }
    }
    return text;
}

/** One mutant that broke a rule, with what it broke. */
export interface FuzzFailure {
    language: FuzzLanguage;
    /** `fixed N` or `mutant N` (reproducible from the seed). */
    label: string;
    /** The rule it broke, e.g. `load threw: TypeError: …`, `internal diagnostic: …`. */
    problem: string;
    /** The text that broke it. */
    text: string;
}

/** The outcome of a fuzz run. */
export interface FuzzReport {
    seed: number;
    /** Per language: texts loaded, how many had errors, how many loaded cleanly and went on to transform/generate. */
    counts: Record<FuzzLanguage, { cases: number; withErrors: number; carriedOn: number }>;
    failures: FuzzFailure[];
    /** Wall-clock milliseconds. */
    milliseconds: number;
}

/** What a fuzz run covers. */
export interface FuzzOptions {
    seed: number;
    /** Mutants per language (the fixed cases come on top). */
    count: number;
    languages?: readonly FuzzLanguage[];
    /** The repository root the example paths are relative to. */
    root: string;
    /** Called after each case (progress). */
    onCase?: (language: FuzzLanguage, index: number) => void;
}

/** Runs the fixed cases, then `count` seeded mutants per language; never throws for a failing case. */
export async function runModelFuzz(options: FuzzOptions): Promise<FuzzReport> {
    const started = Date.now();
    const languages = options.languages ?? (['pidm', 'kvlm'] as const);
    const report: FuzzReport = {
        seed: options.seed,
        counts: { pidm: emptyCount(), kvlm: emptyCount() },
        failures: [],
        milliseconds: 0,
    };
    const scratch = await mkdtemp(join(tmpdir(), 'kvmod-fuzz-'));
    try {
        for (const language of languages) {
            const sources = await Promise.all(
                FUZZ_SOURCES[language].map((path) => readFile(join(options.root, path), 'utf8')),
            );
            // One stream per language: adding a language or cases to one does not change the other's mutants.
            const next = createRandom(options.seed + (language === 'pidm' ? 0 : 1));
            const cases: { label: string; text: string }[] = FUZZ_FIXED_CASES[language].map((text, i) => ({
                label: `fixed ${i}`,
                text,
            }));
            for (let i = 0; i < options.count; i++) {
                const source = sources[Math.floor(next() * sources.length)]!;
                cases.push({ label: `mutant ${i}`, text: mutateModel(source, language, next) });
            }
            for (const [index, { label, text }] of cases.entries()) {
                const counts = report.counts[language];
                counts.cases++;
                const outcome = await checkText(text, language, scratch);
                if (outcome.hadErrors) counts.withErrors++;
                if (outcome.carriedOn) counts.carriedOn++;
                for (const problem of outcome.problems) report.failures.push({ language, label, problem, text });
                options.onCase?.(language, index);
            }
        }
    } finally {
        await rm(scratch, { recursive: true, force: true });
    }
    report.milliseconds = Date.now() - started;
    return report;
}

/** The rules one text must keep; empty when it kept them all. */
async function checkText(
    text: string,
    language: FuzzLanguage,
    scratch: string,
): Promise<{ problems: string[]; hadErrors: boolean; carriedOn: boolean }> {
    const path = `fuzz.${language}`;
    const problems: string[] = [];
    let diagnostics: readonly KvmodDiagnostic[];
    let loaded: Awaited<ReturnType<typeof loadTexts>>;
    try {
        loaded = await loadTexts([{ path, text }]);
        diagnostics = loaded.diagnostics;
    } catch (error) {
        return { problems: [`load threw: ${describeError(error)}`], hadErrors: true, carriedOn: false };
    }
    problems.push(...diagnosticProblems(diagnostics, text));
    if (loaded.hasErrors) return { problems, hadErrors: true, carriedOn: false };
    try {
        if (language === 'kvlm') {
            const model = loaded.kvlm[0]?.model;
            if (model) await generateFromKvlm(model, { target: 'redis' });
        } else {
            const file = join(scratch, 'fuzz.pidm');
            await writeFile(file, text);
            const transformed = await transformFiles([file]);
            problems.push(...diagnosticProblems(transformed.diagnostics, text));
        }
    } catch (error) {
        if (!(error instanceof KvmodError || error instanceof GenerationError))
            problems.push(`${language === 'kvlm' ? 'generate' : 'transform'} threw: ${describeError(error)}`);
    }
    return { problems, hadErrors: false, carriedOn: true };
}

/** Internal diagnostics and messages that print `undefined` (unless the text itself says it). */
function diagnosticProblems(diagnostics: readonly KvmodDiagnostic[], text: string): string[] {
    const problems: string[] = [];
    const mayMentionUndefined = /undefined/i.test(text);
    for (const d of diagnostics) {
        if (d.code.startsWith('internal.')) problems.push(`internal diagnostic: ${d.message} [${d.code}]`);
        else if (!mayMentionUndefined && /\bundefined\b/i.test(d.message))
            problems.push(`message prints undefined: ${d.message} [${d.code}]`);
    }
    return problems;
}

function describeError(error: unknown): string {
    return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function emptyCount(): { cases: number; withErrors: number; carriedOn: number } {
    return { cases: 0, withErrors: 0, carriedOn: 0 };
}
