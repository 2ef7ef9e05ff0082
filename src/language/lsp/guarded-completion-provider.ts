/**
 * Completion that does not run on text the parse guards stopped (src/language/common/parse-guards.ts):
 * Langium's completion parser re-parses the text before the cursor without the guards, and 10,000 nested
 * parentheses overflow its stack. The failed request would be logged as an error, which makes VS Code
 * reveal the server's output channel over whatever panel the user had open. A stopped document has an
 * empty model, so there is nothing to complete.
 */
import type { LangiumDocument } from 'langium';
import { DefaultCompletionProvider } from 'langium/lsp';
import type { CancellationToken, CompletionList, CompletionParams } from 'vscode-languageserver';
import { stoppedByGuard } from '../common/parse-guards.js';

/** Langium's completion, answering "nothing to complete" on a document the parse guards stopped. */
export class GuardedCompletionProvider extends DefaultCompletionProvider {
    override async getCompletion(
        document: LangiumDocument,
        params: CompletionParams,
        cancelToken?: CancellationToken,
    ): Promise<CompletionList | undefined> {
        if (stoppedByGuard(document)) return undefined;
        return super.getCompletion(document, params, cancelToken);
    }
}
