/**
 * Keywords are case-insensitive, but Langium stores a keyword-valued property as the user spelled it
 * (`ASC`, `Text`, `AND`). PIDM's keyword-valued properties are data-type rules, and this converter
 * lowers them so that the AST holds exactly the values its generated types promise.
 */
import { DefaultValueConverter, GrammarAST, type CstNode, type ValueType } from 'langium';

/** The data-type rules whose value is a keyword, stored in lower case. */
const LOWERED_RULES = new Set([
    'DataType',
    'SortDirection',
    'BooleanLiteral',
    'AndOperator',
    'OrOperator',
    'ChangeOperation',
]);

/** Lowers keyword-valued data-type rules where they are assigned (not where a type word is a name). */
export class PidmValueConverter extends DefaultValueConverter {
    protected override runConverter(rule: GrammarAST.AbstractRule, input: string, cstNode: CstNode): ValueType {
        // A type word used as a name (`entity Text`, `text text`) reaches here through the Name rule and
        // keeps its spelling; only a directly assigned rule call is a keyword value.
        const source = cstNode.grammarSource;
        if (
            LOWERED_RULES.has(rule.name) &&
            GrammarAST.isRuleCall(source) &&
            GrammarAST.isAssignment(source.$container)
        ) {
            return input.toLowerCase();
        }
        return super.runConverter(rule, input, cstNode);
    }
}
