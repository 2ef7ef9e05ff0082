/**
 * KVLM's syntax error messages, worded like PIDM's (common/syntax-messages.ts): "Expecting a name but found '}'."
 * rather than Chevrotain's list of the 50 keywords a KVLM name may be spelled as.
 */
import { KvmodParserErrorMessageProvider, type SyntaxVocabulary } from '../common/syntax-messages.js';

const TYPE_WORDS = new Set(['text', 'int', 'float', 'boolean', 'date', 'time', 'datetime']);

/** KVLM's words for its tokens: every keyword may also be a name (the grammar's `KName`). */
const KVLM_VOCABULARY: SyntaxVocabulary = {
    nameKeywords: new Set([
        ...TYPE_WORDS,
        'safe',
        'paper',
        'none',
        'cost',
        'one',
        'optional',
        'many',
        'projected',
        'filtered',
        'ranged',
        'sorted',
        'database',
        'source',
        'merge',
        'threshold',
        'collection',
        'key',
        'natural',
        'counter',
        'from',
        'as',
        'include',
        'field',
        'label',
        'indexed',
        'query',
        'param',
        'order',
        'by',
        'asc',
        'desc',
        'select',
        'where',
        'and',
        'or',
        'not',
        'true',
        'false',
        'refused',
        'common',
        'of',
    ]),
    typeWords: TYPE_WORDS,
    typeList: 'a type (text, int, float, boolean, date, time or datetime)',
    // After the collections, the file may end or hold merge decisions.
    atEnd: 'the end of the file',
    notAllInput: "'collection', 'merge' or the end of the file",
    special: { '?': 'a parameter (?name)' },
};

/** KVLM's syntax error messages. */
export class KvlmParserErrorMessageProvider extends KvmodParserErrorMessageProvider {
    constructor() {
        super(KVLM_VOCABULARY);
    }
}
