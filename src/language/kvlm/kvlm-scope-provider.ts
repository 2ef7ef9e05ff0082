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

    override getScope(context: ReferenceInfo): Scope {
        const referenceType = this.reflection.getReferenceType(context);
        let result = this.getGlobalScope(referenceType, context);
        const localSymbols = AstUtils.getDocument(context.container).localSymbols;
        if (!localSymbols) return result;
        const enclosing: AstNode[] = [];
        for (let node: AstNode | undefined = context.container; node; node = node.$container) {
            if (localSymbols.has(node)) enclosing.push(node);
        }
        for (let i = enclosing.length - 1; i >= 0; i--) {
            result = new LevelScope(this.levelOf(localSymbols, enclosing[i], referenceType), result);
        }
        return result;
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
