/**
 * The PIDM formatter (Format Document). Layout:
 * - `entity Name {`, one member per line indented by one level (2 spaces with the editor's default
 *   of `tabSize: 2, insertSpaces: true`; the formatter follows the editor's indentation options), `}`
 *   on its own line; `ref Target[*] name` with no space before the cardinality; `name: type`.
 * - a query header `query Name:` and then each clause (SELECT, FROM, INCLUDE, WHERE, ORDER BY) on its
 *   own line, not indented, as in the paper's Figure 6;
 * - one space after commas and around comparison operators, `and`, `or`, `as`; none around dots;
 * - `workload {`, one figure per line indented by one level, `}` on its own line;
 * - one blank line between top-level declarations. Keywords keep the case they are written in.
 */
import { CstUtils, isCompositeCstNode, type AstNode } from 'langium';
import { AbstractFormatter, Formatting } from 'langium/lsp';
import {
    isAttribute,
    isBinaryExpression,
    isCardinality,
    isComparison,
    isEntity,
    isFromClause,
    isGroupExpression,
    isIdAttribute,
    isInclude,
    isNotExpression,
    isOrderItem,
    isPath,
    isPidmModel,
    isProjection,
    isQuery,
    isReference,
    isNumberValue,
    isWorkload,
    isWorkloadItem,
} from '../generated/ast.js';

/** Formats PIDM documents; see the module comment for the layout. */
export class PidmFormatter extends AbstractFormatter {
    protected format(node: AstNode): void {
        if (isPidmModel(node)) {
            const declarations = [
                ...(node.databases ?? []),
                ...(node.entities ?? []),
                ...(node.queries ?? []),
                ...(node.workloads ?? []),
            ]
                .filter((declaration) => declaration.$cstNode)
                .sort((a, b) => a.$cstNode!.offset - b.$cstNode!.offset);
            const formatter = this.getNodeFormatter(node);
            declarations.forEach((declaration, index) => {
                // A comment right above a declaration stays attached to it; the blank line goes above the comment
                // (comments themselves are never moved, only re-indented).
                const previous = CstUtils.getPreviousNode(declaration.$cstNode!, true);
                const commented =
                    previous?.hidden === true && previous.range.end.line === declaration.$cstNode!.range.start.line - 1;
                const spacing =
                    index === 0 ? Formatting.noIndent() : commented ? Formatting.newLine() : Formatting.newLines(2);
                formatter.node(declaration).prepend(spacing);
            });
        } else if (isEntity(node)) {
            const formatter = this.getNodeFormatter(node);
            formatter.property('name').prepend(Formatting.oneSpace());
            const open = formatter.keyword('{');
            const close = formatter.keyword('}');
            open.prepend(Formatting.oneSpace());
            formatter.nodes(...(node.members ?? [])).prepend(Formatting.indent());
            close.prepend(Formatting.newLine());
        } else if (isWorkload(node)) {
            const formatter = this.getNodeFormatter(node);
            formatter.keyword('{').prepend(Formatting.oneSpace());
            formatter.nodes(...(node.items ?? [])).prepend(Formatting.indent());
            formatter.keyword('}').prepend(Formatting.newLine());
        } else if (isWorkloadItem(node)) {
            // `update Patient.name 5`: one space between the words, none around the dot.
            const formatter = this.getNodeFormatter(node);
            formatter.properties('query', 'entity', 'rate', 'count', 'average').prepend(Formatting.oneSpace());
            formatter.keyword('.').surround(Formatting.noSpace());
            formatter.keyword(';').prepend(Formatting.noSpace());
        } else if (isAttribute(node)) {
            const formatter = this.getNodeFormatter(node);
            const colon = formatter.keyword(':');
            if (colon.nodes.length > 0) {
                colon.prepend(Formatting.noSpace()).append(Formatting.oneSpace());
            } else {
                // `name type` or `type name`: one space before the second word, whichever it is.
                const words = isCompositeCstNode(node.$cstNode)
                    ? node.$cstNode.content.filter((child) => !child.hidden)
                    : [];
                if (words[1]) formatter.cst([words[1]]).prepend(Formatting.oneSpace());
            }
            formatter.keyword(';').prepend(Formatting.noSpace());
        } else if (isIdAttribute(node)) {
            const formatter = this.getNodeFormatter(node);
            formatter.property('name').prepend(Formatting.oneSpace());
            const colon = formatter.keyword(':');
            if (colon.nodes.length > 0) colon.prepend(Formatting.noSpace()).append(Formatting.oneSpace());
            else formatter.property('type').prepend(Formatting.oneSpace());
            formatter.keyword('unique').prepend(Formatting.oneSpace());
            formatter.keyword(';').prepend(Formatting.noSpace());
        } else if (isReference(node)) {
            const formatter = this.getNodeFormatter(node);
            formatter.property('target').prepend(Formatting.oneSpace());
            formatter.property('cardinality').prepend(Formatting.noSpace());
            formatter.property('name').prepend(Formatting.oneSpace());
            formatter.keyword(';').prepend(Formatting.noSpace());
        } else if (isCardinality(node)) {
            const formatter = this.getNodeFormatter(node);
            formatter.keywords('..', '*', ']', ')').prepend(Formatting.noSpace());
            formatter.properties('lower', 'upper').prepend(Formatting.noSpace());
        } else if (isQuery(node)) {
            const formatter = this.getNodeFormatter(node);
            formatter.property('name').prepend(Formatting.oneSpace());
            formatter.keyword(':').prepend(Formatting.noSpace());
            formatter
                .keywords('select', 'from', 'include', 'including', 'where', 'order')
                .prepend(Formatting.newLine());
            formatter.keyword('by').prepend(Formatting.oneSpace());
            formatter.properties('projections', 'includes', 'where', 'orderBy').prepend(Formatting.oneSpace());
            formatter.property('from').prepend(Formatting.oneSpace());
            formatter.keywords(',').prepend(Formatting.noSpace());
        } else if (isFromClause(node) || isInclude(node) || isProjection(node)) {
            const formatter = this.getNodeFormatter(node);
            formatter.keyword('as').surround(Formatting.oneSpace());
        } else if (isOrderItem(node)) {
            this.getNodeFormatter(node).property('direction').prepend(Formatting.oneSpace());
        } else if (isPath(node)) {
            this.getNodeFormatter(node).keywords('.').surround(Formatting.noSpace());
        } else if (isBinaryExpression(node)) {
            this.getNodeFormatter(node).property('operator').surround(Formatting.oneSpace());
        } else if (isNotExpression(node)) {
            this.getNodeFormatter(node).keyword('not').append(Formatting.oneSpace());
        } else if (isGroupExpression(node)) {
            const formatter = this.getNodeFormatter(node);
            formatter.keyword('(').append(Formatting.noSpace());
            formatter.keyword(')').prepend(Formatting.noSpace());
        } else if (isComparison(node)) {
            this.getNodeFormatter(node).property('operator').surround(Formatting.oneSpace());
        } else if (isNumberValue(node)) {
            this.getNodeFormatter(node).property('value').prepend(Formatting.noSpace());
        }
    }
}
