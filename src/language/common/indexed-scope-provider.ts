/**
 * Scoping with Langium's default rules — a name is looked up among the named children of each enclosing node,
 * innermost first, then in the global scope; the first declaration of a name wins — but each local level is a map
 * built once per document, not a list scanned per reference. Langium's default makes a `StreamScope` per reference
 * and searches it linearly, which makes linking quadratic when many references look among many declarations (the
 * fields of a large KVLM collection, the entities of a large PIDM model).
 */
import {
    DefaultScopeProvider,
    stream,
    type AstNode,
    type AstNodeDescription,
    type LocalSymbols,
    type ReferenceInfo,
    type Scope,
    type Stream,
    AstUtils,
} from 'langium';

/** Levels of at most this many declarations are scanned rather than indexed by name: most declaring nodes have a few. */
const SCANNED_LEVEL = 8;

/** The declarations a node makes visible, of one reference type: in order, and by name (indexed when first asked). */
class Level {
    private index: Map<string, AstNodeDescription[]> | undefined;

    constructor(readonly all: readonly AstNodeDescription[]) {}

    /** The first declaration of `name`. */
    first(name: string): AstNodeDescription | undefined {
        if (this.all.length <= SCANNED_LEVEL) {
            for (const description of this.all) if (description.name === name) return description;
            return undefined;
        }
        return this.byName().get(name)?.[0];
    }

    /** Every declaration of `name`, in order. */
    named(name: string): readonly AstNodeDescription[] {
        return this.byName().get(name) ?? [];
    }

    private byName(): Map<string, AstNodeDescription[]> {
        if (!this.index) {
            this.index = new Map();
            for (const description of this.all) {
                const named = this.index.get(description.name);
                if (named) named.push(description);
                else this.index.set(description.name, [description]);
            }
        }
        return this.index;
    }
}

/** One local level over an outer scope; `getElement` is a map lookup (a scan of a few). */
export class LevelScope implements Scope {
    constructor(
        private readonly level: Level,
        private readonly outer: Scope,
    ) {}

    getElement(name: string): AstNodeDescription | undefined {
        return this.level.first(name) ?? this.outer.getElement(name);
    }

    getElements(name: string): Stream<AstNodeDescription> {
        return stream(this.level.named(name)).concat(this.outer.getElements(name));
    }

    getAllElements(): Stream<AstNodeDescription> {
        return stream(this.level.all).concat(this.outer.getAllElements());
    }
}

/** What a declaring node gives the references under it, for one reference type: its level and the scope made of it. */
interface Entry {
    level: Level;
    /** The node's level over the levels around it over `global`; made when first asked, again when `global` changed. */
    scope: Scope | undefined;
    global: Scope | undefined;
}

/** Langium's default scope semantics with indexed levels (see the file comment); both languages' providers build on it. */
export class IndexedScopeProvider extends DefaultScopeProvider {
    /**
     * Per document state (a new parse computes new local symbols, which drops the old entries), per declaring node
     * and reference type, the node's level and the scope at it: every reference under the node sees the same chain
     * of levels (outermost first) over the same global scope. A scope is made again when the global scope it was
     * made over changed (another document changed the index).
     */
    private readonly entries = new WeakMap<LocalSymbols, Map<AstNode, Map<string, Entry>>>();

    override getScope(context: ReferenceInfo): Scope {
        const referenceType = this.reflection.getReferenceType(context);
        const global = this.getGlobalScope(referenceType, context);
        const localSymbols = AstUtils.getDocument(context.container).localSymbols;
        if (!localSymbols) return global;
        return this.scopeAt(localSymbols, innermostDeclaring(localSymbols, context.container), referenceType, global);
    }

    /** The levels of `node` and of every declaring node around it over `global`; `global` itself without a node. */
    private scopeAt(
        localSymbols: LocalSymbols,
        node: AstNode | undefined,
        referenceType: string,
        global: Scope,
    ): Scope {
        if (!node) return global;
        const entry = this.entryOf(localSymbols, node, referenceType);
        if (entry.scope && entry.global === global) return entry.scope;
        const outer = this.scopeAt(
            localSymbols,
            innermostDeclaring(localSymbols, node.$container),
            referenceType,
            global,
        );
        entry.scope = new LevelScope(entry.level, outer);
        entry.global = global;
        return entry.scope;
    }

    private entryOf(localSymbols: LocalSymbols, node: AstNode, referenceType: string): Entry {
        let byNode = this.entries.get(localSymbols);
        if (!byNode) {
            byNode = new Map();
            this.entries.set(localSymbols, byNode);
        }
        let byType = byNode.get(node);
        if (!byType) {
            byType = new Map();
            byNode.set(node, byType);
        }
        let entry = byType.get(referenceType);
        if (!entry) {
            entry = { level: this.levelOf(localSymbols, node, referenceType), scope: undefined, global: undefined };
            byType.set(referenceType, entry);
        }
        return entry;
    }

    private levelOf(localSymbols: LocalSymbols, node: AstNode, referenceType: string): Level {
        const all: AstNodeDescription[] = [];
        for (const description of localSymbols.getStream(node)) {
            if (this.reflection.isSubtype(description.type, referenceType)) all.push(description);
        }
        return new Level(all);
    }
}

/** `node` or the nearest node around it that declares something (has local symbols). */
function innermostDeclaring(localSymbols: LocalSymbols, node: AstNode | undefined): AstNode | undefined {
    while (node && !localSymbols.has(node)) node = node.$container;
    return node;
}
