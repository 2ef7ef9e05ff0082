/**
 * PIDM's syntax error messages (common/syntax-messages.ts): "Expecting a type (text, int, …) but found 'ref'.",
 * and a missing cardinality said as such, with the reference as the modeler would write it.
 */
import { SyntaxIssueCodes } from '../common/syntax-codes.js';
import type { Grammar } from 'langium';
import { isAttribute, isIdAttribute, isReference, type Entity, type Reference } from '../generated/ast.js';
import { PidmGrammar } from '../generated/grammar.js';
import { pidmWords } from './pidm-grammar-words.js';
import {
    KvmodParserErrorMessageProvider,
    describeExpectedTokens,
    foundToken,
    grammarRuleName,
    type SyntaxTokenType,
    type SyntaxVocabulary,
} from '../common/syntax-messages.js';

type NoViableAltOptions = Parameters<KvmodParserErrorMessageProvider['buildNoViableAltMessage']>[0];

/** PIDM's words for its tokens, from the grammar's rules (pidm-grammar-words.ts). */
function pidmVocabulary(grammar: Grammar): SyntaxVocabulary {
    const { nameWords, typeWords } = pidmWords(grammar);
    return {
        nameKeywords: nameWords,
        typeWords,
        typeList: 'a type (text, int, float, boolean, date, time or datetime)',
        // Only the top level ends at the end of the file, where another declaration may start.
        atEnd: "'entity' or 'query'",
        notAllInput: "'entity' or 'query'",
    };
}

const WORD = /^[_a-zA-Z]\w*$/;

/** The expected tokens, described as kinds of things, in the order the grammar offers them. */
export function describeExpected(tokenTypes: readonly SyntaxTokenType[], grammar: Grammar = PidmGrammar()): string {
    return describeExpectedTokens(tokenTypes, pidmVocabulary(grammar));
}

/** PIDM's syntax error messages. */
export class PidmParserErrorMessageProvider extends KvmodParserErrorMessageProvider {
    constructor(grammar: Grammar = PidmGrammar()) {
        super(pidmVocabulary(grammar));
    }

    override buildNoViableAltMessage(options: NoViableAltOptions): string {
        const { expectedPathsPerAlt, actual, previous } = options;
        const opensCardinality = expectedPathsPerAlt.some((paths) => paths.some((path) => path[0]?.name === '['));
        if (grammarRuleName(options.ruleName) === 'Cardinality' && opensCardinality) {
            // `ref Clinic clinic`: the target and the name are there, the cardinality between them is not.
            const target = previous && WORD.test(previous.image) ? previous.image : undefined;
            const after = target ? ` after '${target}'` : '';
            const name = actual[0]?.image;
            if (target && name && WORD.test(name)) {
                return `Expecting a cardinality${after} but found '${name}': write ref ${target}[1] ${name} (exactly one), [0..1] (at most one) or [*] (many).`;
            }
            return `Expecting a cardinality${after} ([1], [0..1] or [*]) but found ${foundToken(actual[0])}.`;
        }
        return super.buildNoViableAltMessage(options);
    }
}

/** An SQL habit found where a syntax error is: its code and the sentence that replaces the parser's. */
export interface SqlHabit {
    code: string;
    message: string;
}

/** What the advice may quote from the modeler's own model: its entities (those parsed, linked or not). */
export interface HabitModel {
    entities(): readonly Entity[];
}

const sql = (written: string, advice: string) => `'${written}' is SQL, not PIDM: ${advice}.`;

/** Where a habit was written: the text around it, and the model to take names from. */
interface HabitSite {
    text: string;
    offset: number;
    /** The word at the offset as written. */
    word: string;
    model?: HabitModel;
}

/** A literal as PIDM writes it: a number, a quoted string, true or false. */
const LITERAL = String.raw`-?\d+(?:\.\d+)?|"[^"\r\n]*"|'[^'\r\n]*'|true|false`;

/** The path written just before the offset (`born BETWEEN`: `born`), if any. */
function pathBefore(site: HabitSite): string | undefined {
    return /([_a-zA-Z][\w.]*)\s*$/.exec(site.text.slice(Math.max(0, site.offset - 200), site.offset))?.[1];
}

/** The text of the query the offset is in: from its `query` keyword to the next declaration. */
function queryText(site: HabitSite): string {
    const before = site.text.slice(Math.max(0, site.offset - 4000), site.offset);
    const starts = [...before.matchAll(/(?:^|[\n\r])\s*query\b/gi)];
    const start = starts.length > 0 ? before.length - (starts.at(-1)!.index ?? 0) : before.length;
    const after = site.text.slice(site.offset, site.offset + 4000);
    const end = /[\n\r]\s*(?:query|entity)\b/i.exec(after)?.index ?? after.length;
    return site.text.slice(site.offset - start, site.offset + end);
}

/** The FROM entity's name as written in the query, if any. */
function fromEntityName(site: HabitSite): string | undefined {
    return /\bfrom\s+([_a-zA-Z]\w*)/i.exec(queryText(site))?.[1];
}

/** The entity of that name in the model (exactly, else ignoring case). */
function entityNamed(site: HabitSite, name: string | undefined): Entity | undefined {
    if (!name) return undefined;
    const entities = site.model?.entities() ?? [];
    return (
        entities.find((entity) => entity.name === name) ??
        entities.find((entity) => entity.name?.toLowerCase() === name.toLowerCase())
    );
}

/** `born BETWEEN "?a" AND "?b"`: write `born >= "?a" and born <= "?b"`. */
function betweenAdvice(site: HabitSite): string {
    const path = pathBefore(site) ?? 'value';
    const bounds = new RegExp(String.raw`^\s*(${LITERAL})\s+and\s+(${LITERAL})`, 'i').exec(
        site.text.slice(site.offset + site.word.length, site.offset + 400),
    );
    const [low, high] = bounds ? [bounds[1], bounds[2]] : ['"?low"', '"?high"'];
    return `write a >= and a <= (${path} >= ${low} and ${path} <= ${high})`;
}

/** `city IN ("Lyon", "Paris")`: write `city = "Lyon" or city = "Paris"`. */
function inAdvice(site: HabitSite): string {
    const path = pathBefore(site) ?? 'value';
    const list = /^\s*\(([^)]*)\)/.exec(site.text.slice(site.offset + site.word.length, site.offset + 400))?.[1] ?? '';
    const values = [...list.matchAll(new RegExp(LITERAL, 'gi'))].map((match) => match[0]).slice(0, 3);
    const shown = values.length > 0 ? values : ['"?first"', '"?second"'];
    return `use or (${shown.map((value) => `${path} = ${value}`).join(' or ')})`;
}

/** `SELECT *`: list the FROM entity's attributes (`SELECT pid, name FROM Patient`). */
function selectStarAdvice(site: HabitSite): string {
    const fromName = fromEntityName(site);
    if (!fromName) return 'list the attributes';
    const entity = entityNamed(site, fromName);
    const names = (entity?.members ?? [])
        .filter((member) => isAttribute(member) || isIdAttribute(member))
        .map((member) => member.name)
        .filter(Boolean)
        .slice(0, 2);
    return `list the attributes (SELECT ${names.length > 0 ? names.join(', ') : '…'} FROM ${entity?.name ?? fromName})`;
}

/** `FROM Ride JOIN Driver`: include the reference of Ride to Driver (`FROM Ride INCLUDE Ride.driver AS D`). */
function joinAdvice(site: HabitSite): string {
    const fromName = fromEntityName(site);
    const afterJoin = site.text.slice(site.offset, site.offset + 400).replace(/^\w+\s+(?:outer\s+)?(?:join\s+)?/i, '');
    const target = /^([_a-zA-Z]\w*)(?:\s+(?:as\s+)?([_a-zA-Z]\w*))?/i.exec(afterJoin);
    if (!fromName || !target) return 'use INCLUDE with a reference path (FROM A INCLUDE A.reference AS R)';
    const entity = entityNamed(site, fromName);
    const from = entity?.name ?? fromName;
    const targetName = target[1];
    const reference = entity?.members.find(
        (member): member is Reference =>
            isReference(member) && member.target?.$refText?.toLowerCase() === targetName.toLowerCase(),
    );
    const writtenAlias = target[2] && !/^on$/i.test(target[2]) ? target[2] : undefined;
    const alias = writtenAlias ?? targetName[0].toUpperCase();
    const path = `${from}.${reference?.name ?? `<its reference to ${targetName}>`}`;
    return `use INCLUDE with a reference path (FROM ${from} INCLUDE ${path} AS ${alias})`;
}

const LIMIT_ADVICE = 'queries are not limited in PIDM; see --limit / pagination';
const LIKE_ADVICE = 'PIDM compares whole values; use = (or >= and < for a prefix)';
const GROUP_ADVICE = 'a query returns rows, not groups; list the attributes and group in the application';

/** Habits recognised by the word where the syntax error is (upper-cased). */
const WORD_HABITS: Record<string, (site: HabitSite) => SqlHabit> = {
    LIMIT: (s) => ({ code: SyntaxIssueCodes.SqlLimit, message: sql(s.word, LIMIT_ADVICE) }),
    OFFSET: (s) => ({ code: SyntaxIssueCodes.SqlLimit, message: sql(s.word, LIMIT_ADVICE) }),
    BETWEEN: (s) => ({ code: SyntaxIssueCodes.SqlBetween, message: sql(s.word, betweenAdvice(s)) }),
    IN: (s) => ({ code: SyntaxIssueCodes.SqlIn, message: sql(s.word, inAdvice(s)) }),
    LIKE: (s) => ({ code: SyntaxIssueCodes.SqlLike, message: sql(s.word, LIKE_ADVICE) }),
    ILIKE: (s) => ({ code: SyntaxIssueCodes.SqlLike, message: sql(s.word, LIKE_ADVICE) }),
    JOIN: (s) => ({ code: SyntaxIssueCodes.SqlJoin, message: sql(s.word, joinAdvice(s)) }),
    GROUP: (s) => ({ code: SyntaxIssueCodes.SqlAggregate, message: sql(`${s.word} BY`, GROUP_ADVICE) }),
    HAVING: (s) => ({ code: SyntaxIssueCodes.SqlAggregate, message: sql(s.word, GROUP_ADVICE) }),
};

/** `INNER`, `LEFT`, … start a join only when `JOIN` follows. */
const JOIN_PREFIXES = new Set(['INNER', 'LEFT', 'RIGHT', 'FULL', 'OUTER', 'CROSS', 'NATURAL']);
const AGGREGATES = new Set(['COUNT', 'SUM', 'AVG', 'MIN', 'MAX']);

/**
 * The SQL habit behind a syntax error at `offset` of `text`, if it is one: a parameter written `?x`, `$x` or
 * `:x`, `LIMIT`, `BETWEEN`, `IN`, `LIKE`, `SELECT *`, `COUNT(*)`, `JOIN`, `GROUP BY`. The advice quotes the
 * modeler's own query and, given the `model`, its entities' names.
 */
export function sqlHabitAt(text: string, offset: number, model?: HabitModel): SqlHabit | undefined {
    const parameter = /^[?$:]([_a-zA-Z]\w*)/.exec(text.slice(offset, offset + 200));
    if (parameter) {
        return {
            code: SyntaxIssueCodes.SqlParameter,
            message: `Write a parameter as "?${parameter[1]}" (a string starting with ?), not ${parameter[0]}.`,
        };
    }
    const before = text.slice(Math.max(0, offset - 200), offset);
    if (text[offset] === '*' && /\bselect\s*$/i.test(before)) {
        return {
            code: SyntaxIssueCodes.SqlSelectStar,
            message: sql('SELECT *', selectStarAdvice({ text, offset, word: '*', model })),
        };
    }
    const called = /\b([_a-zA-Z]\w*)\s*$/.exec(before);
    if (text[offset] === '(' && called && AGGREGATES.has(called[1].toUpperCase())) {
        return {
            code: SyntaxIssueCodes.SqlAggregate,
            message: sql(
                `${called[1]}(…)`,
                'a query returns rows, not aggregates; list the attributes and count in the application',
            ),
        };
    }
    const word = /^[_a-zA-Z]\w*/.exec(text.slice(offset, offset + 100))?.[0];
    if (!word) return undefined;
    const upper = word.toUpperCase();
    if (
        JOIN_PREFIXES.has(upper) &&
        /^\s+(outer\s+)?join\b/i.test(text.slice(offset + word.length, offset + word.length + 20))
    ) {
        return WORD_HABITS.JOIN({ text, offset, word: `${word} JOIN`, model });
    }
    return WORD_HABITS[upper]?.({ text, offset, word, model });
}
