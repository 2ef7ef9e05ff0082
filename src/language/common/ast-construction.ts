/**
 * Building Langium ASTs in memory (the M2M's KVLM output, the benchmark's random PIDM models) exactly as
 * the parser would: every node knows its container, property and index; cross-references are resolved.
 */
import type { AstNode, Reference } from 'langium';

/** A node type whose readonly properties may be set while the node is being built. */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Turns `props` into an AST node of its `$type`, placed in `container` under `property` at `index`. */
export function makeAstNode<T extends AstNode>(
    container: AstNode | undefined,
    property: string | undefined,
    index: number | undefined,
    props: Omit<T, keyof AstNode> & { $type: T['$type'] },
): T {
    const node = props as unknown as Mutable<AstNode>;
    node.$container = container;
    node.$containerProperty = property;
    node.$containerIndex = index;
    return node as unknown as T;
}

/** A cross-reference already resolved to `target`, written `text` (what the printer and linker clients read). */
export function resolvedReference<T extends AstNode>(target: T, text: string): Reference<T> {
    return { ref: target, $refText: text } as Reference<T>;
}
