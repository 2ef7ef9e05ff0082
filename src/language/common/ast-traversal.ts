/**
 * Linking and validating a document without Langium's streams. Langium's linker and document validator
 * walk the AST with `streamAst` (a stream object and an iterator per node), then `streamReferences` per
 * node, yield to the event loop (`await interruptAndCheck`) before every node, build a stream chain to find
 * each node's checks, and run every check inside two async wrappers. A 1000 × 1000 PIDM grid has millions
 * of nodes: that machinery, and the garbage it leaves, was a third of `kvmod validate`'s time. Here the
 * same nodes are visited in the same order (parents first, children in property order, as `streamAst`),
 * the same references linked in the same order and the same checks run in the same order, with a check
 * for cancellation every `CHECK_EVERY` nodes; a synchronous check costs no promise.
 */
import {
    Cancellation,
    DefaultLinker,
    ValidationRegistry,
    interruptAndCheck,
    isAstNode,
    isLinkingError,
    isMultiReference,
    isReference,
    type AstNode,
    type AstNodeDescription,
    type CstNode,
    type LangiumCoreServices,
    type LangiumDocument,
    type Linker,
    type LinkingError,
    type MaybePromise,
    type Module,
    type Reference,
    type ReferenceInfo,
    type ValidationAcceptor,
    type ValidationCheck,
    type ValidationOptions,
} from 'langium';

import { BatchStepNode, type BatchSource } from './batch-cst.js';
import { referenceResolverOf, type ReferenceResolver } from './langium-internals.js';

/** Nodes visited between two checks for cancellation (and chances for the event loop to run). */
const CHECK_EVERY = 256;

/**
 * Pushes a node's children onto a stack so that they pop in property order (`streamContents`' order:
 * the node's own keys, `$`-properties skipped, array elements in order).
 */
export function pushChildren(node: AstNode, stack: AstNode[]): void {
    const start = stack.length;
    const record = node as unknown as Record<string, unknown>;
    if (!isPlainObject(record)) pushChildrenOf(record, Object.keys(record), stack);
    // `for … in` on a plain object (no enumerable inherited keys) visits `Object.keys` in its order without making its array.
    else
        for (const key in record) {
            if (key.charCodeAt(0) === 36 /* $ */) continue;
            const value = record[key];
            if (isAstNode(value)) stack.push(value);
            else if (Array.isArray(value)) for (const element of value) if (isAstNode(element)) stack.push(element);
        }
    // Reverse what was pushed: the first child must pop first.
    for (let i = start, j = stack.length - 1; i < j; i++, j--) {
        const first = stack[i];
        stack[i] = stack[j];
        stack[j] = first;
    }
}

function pushChildrenOf(record: Record<string, unknown>, keys: readonly string[], stack: AstNode[]): void {
    for (const key of keys) {
        if (key.charCodeAt(0) === 36 /* $ */) continue;
        const value = record[key];
        if (isAstNode(value)) stack.push(value);
        else if (Array.isArray(value)) for (const element of value) if (isAstNode(element)) stack.push(element);
    }
}

/** Whether `for … in` on a node visits exactly its own keys: its prototype is `Object.prototype` (or none). */
export function isPlainObject(record: object): boolean {
    const proto: unknown = Object.getPrototypeOf(record);
    return proto === Object.prototype || proto === null;
}

/** Calls `visit` with each cross-reference of a node, in property order (`AstUtils.streamReferences`' order). */
export function forEachReference(node: AstNode, visit: (info: ReferenceInfo) => void): void {
    const record = node as unknown as Record<string, unknown>;
    if (!isPlainObject(record)) {
        for (const property of Object.keys(record)) referencesOf(node, record, property, visit);
        return;
    }
    // As in `pushChildren`: `Object.keys`' order without its array.
    for (const property in record) referencesOf(node, record, property, visit);
}

function referencesOf(
    node: AstNode,
    record: Record<string, unknown>,
    property: string,
    visit: (info: ReferenceInfo) => void,
): void {
    if (property.charCodeAt(0) === 36 /* $ */) return;
    const value = record[property];
    if (isReference(value) || isMultiReference(value)) visit({ reference: value, container: node, property });
    else if (Array.isArray(value)) {
        for (let index = 0; index < value.length; index++) {
            const element: unknown = value[index];
            if (isReference(element) || isMultiReference(element))
                visit({ reference: element, container: node, property, index });
        }
    }
}

/** Every node under `root` (root included), parents first: the order of `AstUtils.streamAst`. */
export function* walkAst(root: AstNode): Generator<AstNode> {
    const stack = [root];
    while (stack.length > 0) {
        const node = stack.pop()!;
        yield node;
        pushChildren(node, stack);
    }
}

/** Langium's linker, walking the AST directly (see the file comment). */
export class KvmodLinker extends DefaultLinker {
    override async link(document: LangiumDocument, cancelToken = Cancellation.CancellationToken.None): Promise<void> {
        if (this.profiler?.isActive('linking')) return super.link(document, cancelToken);
        const stack = [document.parseResult.value];
        let visited = 0;
        while (stack.length > 0) {
            const node = stack.pop()!;
            if (visited++ % CHECK_EVERY === 0) await interruptAndCheck(cancelToken);
            // The node's references in property order (`streamReferences`), then its children.
            forEachReference(node, (info) => this.doLink(info, document));
            pushChildren(node, stack);
        }
    }
}

/**
 * Langium's reference (`DefaultReferenceImpl` in linker.js, not exported), with the field linking adds
 * later (`_nodeDescription`) declared up front: V8 then keeps all fields in the object instead of a
 * separate property array, ~50 bytes less for each of the millions of references of a large model. For
 * batch runs only: the editor unlinks (`delete reference._nodeDescription`), which would slow such objects.
 */
class BatchReference {
    _ref: unknown = undefined;
    _nodeDescription: AstNodeDescription | undefined = undefined;

    constructor(
        readonly resolver: ReferenceResolver,
        readonly node: AstNode,
        readonly property: string,
        public $refNode: CstNode | undefined,
        readonly $refText: string,
    ) {}

    get ref(): AstNode | undefined {
        return this.resolver.resolveReference(this, this.node, this.property);
    }

    get $nodeDescription(): AstNodeDescription | undefined {
        return this._nodeDescription;
    }

    get error(): LinkingError | undefined {
        return isLinkingError(this._ref) ? this._ref : undefined;
    }
}

/** The batch runs' linker: `KvmodLinker` with compact references. */
export class KvmodBatchLinker extends KvmodLinker {
    private readonly stepClasses = new Map<
        string,
        new (source: BatchSource, segment: AstNode, offset: number, length: number, refText: string) => BatchStepNode
    >();

    /** A path step's CST stand-in that is also its reference for `property` (`BatchStepNode`), resolved by this linker. */
    buildStepReference(
        source: BatchSource,
        segment: AstNode,
        property: string,
        offset: number,
        length: number,
        refText: string,
    ): BatchStepNode {
        let stepClass = this.stepClasses.get(property);
        if (!stepClass) {
            const resolver = referenceResolverOf(this);
            stepClass = class extends BatchStepNode {
                protected get resolver(): ReferenceResolver {
                    return resolver;
                }
                protected get property(): string {
                    return property;
                }
            };
            this.stepClasses.set(property, stepClass);
        }
        return new stepClass(source, segment, offset, length, refText);
    }

    override buildReference(node: AstNode, property: string, refNode: CstNode | undefined, refText: string): Reference {
        const resolver = referenceResolverOf(this);
        return new BatchReference(resolver, node, property, refNode, refText) as unknown as Reference;
    }
}

/** The validation registry, with checks that only cost a promise when they return one. */
export class KvmodValidationRegistry extends ValidationRegistry {
    protected override wrapValidationException(check: ValidationCheck, thisObj: unknown): ValidationCheck {
        const context = 'An error occurred during validation';
        return (node, accept, cancelToken) => {
            let result: MaybePromise<void>;
            try {
                result = check.call(thisObj, node, accept, cancelToken);
            } catch (error) {
                // The same handling as Langium's wrapper (and whatever replaced `handleException`).
                return this.handleException(
                    () => {
                        throw error;
                    },
                    context,
                    accept,
                    node,
                );
            }
            if (result !== undefined && typeof (result as PromiseLike<void>).then === 'function')
                return this.handleException(() => result, context, accept, node);
            return undefined;
        };
    }
}

/** What `validateAstNodes` needs of a document validator. */
export interface NodeValidator {
    validationRegistry: ValidationRegistry;
    validateSingleNodeOptions(
        node: AstNode,
        options: ValidationOptions,
    ): { validateNode: boolean; validateChildren: boolean };
}

/**
 * Runs the registered checks on every node under `root`: Langium's `validateAstNodes` without streams
 * (a document validator's override calls it).
 */
export async function validateAstNodes(
    validator: NodeValidator,
    root: AstNode,
    options: ValidationOptions,
    accept: ValidationAcceptor,
    cancelToken = Cancellation.CancellationToken.None,
): Promise<void> {
    const checksByType = new Map<string, ValidationCheck[]>();
    const stack = [root];
    let visited = 0;
    while (stack.length > 0) {
        const node = stack.pop()!;
        if (visited++ % CHECK_EVERY === 0) await interruptAndCheck(cancelToken);
        const nodeOptions = validator.validateSingleNodeOptions(node, options);
        if (nodeOptions.validateNode) {
            let checks = checksByType.get(node.$type);
            if (!checks) {
                checks = validator.validationRegistry.getChecks(node.$type, options.categories).toArray();
                checksByType.set(node.$type, checks);
            }
            for (const check of checks) {
                const result = check(node, accept, cancelToken);
                if (result !== undefined) await result;
            }
        }
        if (nodeOptions.validateChildren) pushChildren(node, stack);
    }
}

/** The module that installs the linker and the registry in a language. */
export const KvmodTraversalModule: Module<
    LangiumCoreServices,
    {
        references: { Linker: (services: LangiumCoreServices) => Linker };
        validation: { ValidationRegistry: (services: LangiumCoreServices) => ValidationRegistry };
    }
> = {
    references: {
        Linker: (services) => new KvmodLinker(services),
    },
    validation: {
        ValidationRegistry: (services) => new KvmodValidationRegistry(services),
    },
};
