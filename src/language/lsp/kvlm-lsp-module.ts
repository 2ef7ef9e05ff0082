/**
 * The KVLM language's editor services that go beyond Langium's defaults; `kvlm-module.ts` spreads them
 * into its `lsp` section.
 */
import type { LangiumServices } from 'langium/lsp';
import { GuardedCompletionProvider } from './guarded-completion-provider.js';
import { KvlmHoverProvider } from './kvlm-hover-provider.js';

/** Hover for KVLM fields, nodes, collections and queries; completion kept off text the parse guards stopped. */
export const KvlmLspProviders = {
    CompletionProvider: (services: LangiumServices) => new GuardedCompletionProvider(services),
    HoverProvider: (services: LangiumServices) => new KvlmHoverProvider(services),
};
