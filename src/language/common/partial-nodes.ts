/**
 * Nodes left partial by the parser's error recovery. On a syntax error, Chevrotain recovers by building the
 * node with whatever it had read: a field without its name or type, a collection without its name, an
 * expression without its right side. Checks are written for the grammar's nodes, where those properties are
 * mandatory; run on a partial node they crashed (`undefined.toLowerCase()`) or printed `undefined` for a name.
 * The syntax error already says what is wrong there, so the rule is: a check does not run on a node that is
 * partial, sits in a partial node, contains one, or refers to one. In a file without syntax errors every node
 * is complete and every check runs; in a broken file the checks of the broken construct (and of the model as a
 * whole, when it contains the construct) come back once the syntax is fixed.
 */
import { AstUtils, isReference, type AstNode, type AstReflection, type ValidationChecks } from 'langium';

/** True when every property the grammar makes mandatory for the node's type is set (references: named). */
export function isCompleteNode(node: AstNode, reflection: AstReflection): boolean {
    const properties = reflection.getTypeMetaData(node.$type).properties;
    const record = node as unknown as Record<string, unknown>;
    for (const [name, property] of Object.entries(properties)) {
        if ((property as { optional?: boolean }).optional) continue;
        const value = record[name];
        if (value === undefined || value === null) return false;
        if (isReference(value) && value.$refText === '' && value.ref === undefined) return false;
    }
    return true;
}

/**
 * The name of a node that may be partial: undefined unless it is a non-empty string, so that a message can
 * leave the name out rather than print `'undefined'`. For messages made outside the checks (linking).
 */
export function nameOf(node: AstNode | undefined): string | undefined {
    const name = (node as { name?: unknown } | undefined)?.name;
    return typeof name === 'string' && name !== '' ? name : undefined;
}

/** Per parse result: the nodes checks must skip (computed once, only for documents with syntax errors). */
const skippedNodes = new WeakMap<AstNode, ReadonlySet<AstNode>>();

/**
 * True when checks may run on `node`: its document parsed without errors, or neither the node, its containers,
 * its contents nor the nodes they refer to were left partial by recovery.
 */
export function isSoundForChecks(node: AstNode, reflection: AstReflection): boolean {
    const root = AstUtils.findRootNode(node);
    const document = root.$document;
    if (!document || (document.parseResult.parserErrors.length === 0 && document.parseResult.lexerErrors.length === 0))
        return true;
    let skipped = skippedNodes.get(root);
    if (!skipped) {
        skipped = nodesToSkip(root, reflection);
        skippedNodes.set(root, skipped);
    }
    return !skipped.has(node);
}

/** Every partial node, the nodes that contain one, and the nodes (and their containers) that refer to one. */
function nodesToSkip(root: AstNode, reflection: AstReflection): Set<AstNode> {
    const partial = new Set<AstNode>();
    for (const node of AstUtils.streamAst(root)) if (!isCompleteNode(node, reflection)) partial.add(node);
    const skipped = new Set<AstNode>();
    const skipContainersOf = (start: AstNode) => {
        for (let node = start.$container; node && !skipped.has(node); node = node.$container) skipped.add(node);
    };
    for (const node of partial) {
        skipContainersOf(node);
        // Its contents too: a check on a child may name the partial parent (`in collection '…'`).
        for (const inner of AstUtils.streamAst(node)) skipped.add(inner);
    }
    if (partial.size > 0) {
        for (const node of AstUtils.streamAst(root)) {
            for (const reference of AstUtils.streamReferences(node)) {
                const value = reference.reference;
                const targets = isReference(value) ? [value.ref] : value.items.map((item) => item.ref);
                if (targets.some((target) => target !== undefined && partial.has(target))) {
                    skipped.add(node);
                    skipContainersOf(node);
                }
            }
        }
    }
    return skipped;
}

/**
 * The same checks, each skipping the nodes `isSoundForChecks` rules out. Register the result instead of the
 * checks themselves, so that no check of the language has to guard against partial nodes on its own.
 */
export function checksOnSoundNodes<T>(checks: ValidationChecks<T>, reflection: AstReflection): ValidationChecks<T> {
    const guarded: Record<string, unknown> = {};
    for (const [type, value] of Object.entries(checks as Record<string, unknown>)) {
        if (value === undefined) continue;
        const list = (Array.isArray(value) ? value : [value]) as ((this: unknown, ...args: unknown[]) => unknown)[];
        guarded[type] = list.map(
            (check) =>
                // A validation check's three parameters, named: no array per call, as a rest parameter would make.
                function (this: unknown, node: AstNode, accept: unknown, cancelToken: unknown) {
                    return isSoundForChecks(node, reflection) ? check.call(this, node, accept, cancelToken) : undefined;
                },
        );
    }
    return guarded as ValidationChecks<T>;
}
