/**
 * The PIDM words the lexer's layout rule and the syntax messages need, read from the grammar (the only source
 * of PIDM's syntax): adding a synonym to a rule of `metamodels/pidm.langium` needs no edit here.
 */
import { GrammarAST, type Grammar } from 'langium';

export interface PidmWords {
    /** The keywords of the `DataType` rule (`text`, `string`, `int`, …), in lower case. */
    typeWords: ReadonlySet<string>;
    /** The keywords the `Name` rule accepts as names. */
    nameWords: ReadonlySet<string>;
    /** The keywords of the `ComparisonOperator` rule (`=`, `<>`, …). */
    comparisonOperators: ReadonlySet<string>;
    /** The keyword the `IdAttribute` rule starts with (`id`). */
    idKeyword: string;
}

const cache = new WeakMap<Grammar, PidmWords>();

/** The PIDM words of a grammar (PIDM's, or a copy of it). */
export function pidmWords(grammar: Grammar): PidmWords {
    let words = cache.get(grammar);
    if (!words) {
        const idAttribute = rule(grammar, 'IdAttribute').definition;
        const first = GrammarAST.isGroup(idAttribute) ? idAttribute.elements[0] : idAttribute;
        if (!GrammarAST.isKeyword(first))
            throw new Error('The PIDM grammar: IdAttribute does not start with a keyword');
        words = {
            typeWords: keywordsOf(grammar, 'DataType'),
            nameWords: keywordsOf(grammar, 'Name'),
            comparisonOperators: keywordsOf(grammar, 'ComparisonOperator'),
            idKeyword: first.value.toLowerCase(),
        };
        cache.set(grammar, words);
    }
    return words;
}

function rule(grammar: Grammar, name: string): GrammarAST.ParserRule {
    const found = grammar.rules.find((candidate) => candidate.name === name);
    if (!GrammarAST.isParserRule(found)) throw new Error(`The PIDM grammar has no parser rule ${name}`);
    return found;
}

/** The keywords a data type rule accepts, through the rules it calls. */
function keywordsOf(grammar: Grammar, name: string): ReadonlySet<string> {
    const words = new Set<string>();
    const visit = (element: GrammarAST.AbstractElement | undefined, seen: Set<GrammarAST.AbstractRule>): void => {
        if (!element) return;
        if (GrammarAST.isKeyword(element)) words.add(element.value.toLowerCase());
        else if (GrammarAST.isGroup(element) || GrammarAST.isAlternatives(element))
            for (const child of element.elements) visit(child, seen);
        else if (
            GrammarAST.isRuleCall(element) &&
            GrammarAST.isParserRule(element.rule.ref) &&
            !seen.has(element.rule.ref)
        ) {
            seen.add(element.rule.ref);
            visit(element.rule.ref.definition, seen);
        }
    };
    const start = rule(grammar, name);
    visit(start.definition, new Set([start]));
    return words;
}
