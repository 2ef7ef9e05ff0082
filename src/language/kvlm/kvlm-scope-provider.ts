/**
 * KVLM scoping with Langium's default rules — a name is looked up among the named children of each
 * enclosing node, innermost first, then in the global scope; the first declaration of a name wins — but
 * each local level is a map built once per document, not a list scanned per reference. A collection of
 * a thousand fields referenced a thousand times each made linking quadratic (seconds per 10 MB file).
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

/** The declarations a node makes visible, of one reference type: in order, and by name. */
interface Level {
    all: AstNodeDescription[];
    byName: Map<string, AstNodeDescription[]>;
}

/** One local level over an outer scope; `getElement` is a map lookup. */
class LevelScope implements Scope {
    constructor(
        private readonly level: Level,
        private readonly outer: Scope,
    ) {}

    getElement(name: string): AstNodeDescription | undefined {
        return this.level.byName.get(name)?.[0] ?? this.outer.getElement(name);
    }

    getElements(name: string): Stream<AstNodeDescription> {
        return stream(this.level.byName.get(name) ?? []).concat(this.outer.getElements(name));
    }

    getAllElements(): Stream<AstNodeDescription> {
        return stream(this.level.all).concat(this.outer.getAllElements());
    }
}

/** The KVLM scope provider: the default semantics with indexed levels (see the file comment). */
export class KvlmScopeProvider extends DefaultScopeProvider {
    /** Levels per document state: a new parse computes new local symbols, which drops the old levels. */
    private readonly levels = new WeakMap<LocalSymbols, Map<AstNode, Map<string, Level>>>();

    /**
     * The scope at each node that declares something, per reference type, made once: every reference under the
     * node sees the same chain of levels (outermost first) over the same global scope. An entry holds the global
     * scope it was made over and is made again when that changed (another document changed the index).
     */
    private readonly scopes = new WeakMap<LocalSymbols, Map<AstNode, Map<string, { scope: Scope; global: Scope }>>>();

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
        let byNode = this.scopes.get(localSymbols);
        if (!byNode) {
            byNode = new Map();
            this.scopes.set(localSymbols, byNode);
        }
        let byType = byNode.get(node);
        if (!byType) {
            byType = new Map();
            byNode.set(node, byType);
        }
        const made = byType.get(referenceType);
        if (made && made.global === global) return made.scope;
        const outer = this.scopeAt(
            localSymbols,
            innermostDeclaring(localSymbols, node.$container),
            referenceType,
            global,
        );
        const scope = new LevelScope(this.levelOf(localSymbols, node, referenceType), outer);
        byType.set(referenceType, { scope, global });
        return scope;
    }

    private levelOf(localSymbols: LocalSymbols, node: AstNode, referenceType: string): Level {
        let byNode = this.levels.get(localSymbols);
        if (!byNode) {
            byNode = new Map();
            this.levels.set(localSymbols, byNode);
        }
        let byType = byNode.get(node);
        if (!byType) {
            byType = new Map();
            byNode.set(node, byType);
        }
        let level = byType.get(referenceType);
        if (!level) {
            const all = localSymbols
                .getStream(node)
                .filter((description) => this.reflection.isSubtype(description.type, referenceType))
                .toArray();
            const byName = new Map<string, AstNodeDescription[]>();
            for (const description of all) {
                const named = byName.get(description.name);
                if (named) named.push(description);
                else byName.set(description.name, [description]);
            }
            level = { all, byName };
            byType.set(referenceType, level);
        }
        return level;
    }
}

/** `node` or the nearest node around it that declares something (has local symbols). */
function innermostDeclaring(localSymbols: LocalSymbols, node: AstNode | undefined): AstNode | undefined {
    while (node && !localSymbols.has(node)) node = node.$container;
    return node;
}
