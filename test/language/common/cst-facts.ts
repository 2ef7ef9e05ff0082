/** What a batch run can read of a document's CST (lean-cst.test.ts, pidm-batch-parser.test.ts). */
import { AstUtils, GrammarUtils, isReference, type CstNode, type LangiumDocument } from 'langium';
import type { KvmodCoreServices } from '../../../src/language/kvmod-core-module.js';

export function rangeOf(node: CstNode | undefined): string {
    if (!node) return '-';
    const { start, end } = node.range;
    return `${start.line}:${start.character}-${end.line}:${end.character} ${JSON.stringify(node.text)}`;
}

/** What a batch run can read of a document's CST, node by node. */
export function facts(services: KvmodCoreServices, document: LangiumDocument): string[] {
    const names = services.shared.ServiceRegistry.getServices(document.uri).references.NameProvider;
    const lines: string[] = [];
    for (const node of AstUtils.streamAst(document.parseResult.value)) {
        lines.push(`${node.$type} ${rangeOf(node.$cstNode)} ${node.$cstNode?.astNode === node}`);
        // Where a scope's description of the node points (`createDescription`'s name segment).
        lines.push(`  name ${rangeOf(names.getNameNode(node) ?? node.$cstNode)}`);
        for (const [property, value] of Object.entries(node)) {
            if (property.startsWith('$')) continue;
            const count = Array.isArray(value) ? value.length : 1;
            for (let index = 0; index < count; index++)
                // What a diagnostic on the property spans (`getDiagnosticRange`: the property's node, else the node's).
                lines.push(
                    `  ${property}[${index}] ${rangeOf(GrammarUtils.findNodeForProperty(node.$cstNode, property, index) ?? node.$cstNode)}`,
                );
            for (const element of Array.isArray(value) ? value : [value])
                if (isReference(element)) lines.push(`  ref ${element.$refText} ${rangeOf(element.$refNode)}`);
        }
        const first = node.$cstNode?.text.match(/^[A-Za-z]+/)?.[0];
        if (first) lines.push(`  keyword ${first} ${rangeOf(GrammarUtils.findNodeForKeyword(node.$cstNode, first))}`);
    }
    return lines;
}
