/**
 * PIDM's local symbols: only the model's own children (entities and queries). Path segments are scoped
 * by `PidmScopeProvider` from the query's aliases and the entities' members, never from local symbols;
 * the only references scoped the default way (a reference's target, the FROM entity) look for entities,
 * which are children of the model. Langium's default walks every node of the document to record names
 * nobody looks up: on a 10 MB model, millions of nodes.
 */
import {
    AstUtils,
    Cancellation,
    DefaultScopeComputation,
    MultiMap,
    interruptAndCheck,
    type AstNode,
    type AstNodeDescription,
    type LangiumDocument,
    type LocalSymbols,
} from 'langium';

/** The PIDM scope computation (see the file comment). */
export class PidmScopeComputation extends DefaultScopeComputation {
    override async collectLocalSymbols(
        document: LangiumDocument,
        cancelToken = Cancellation.CancellationToken.None,
    ): Promise<LocalSymbols> {
        const symbols = new MultiMap<AstNode, AstNodeDescription>();
        for (const node of AstUtils.streamContents(document.parseResult.value)) {
            await interruptAndCheck(cancelToken);
            this.addLocalSymbol(node, document, symbols);
        }
        return symbols;
    }
}
