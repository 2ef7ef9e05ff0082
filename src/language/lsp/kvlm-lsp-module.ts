/**
 * The KVLM language's editor services that go beyond Langium's defaults; `kvlm-module.ts` spreads them
 * into its `lsp` section.
 */
import type { LangiumServices } from 'langium/lsp';
import { KvlmHoverProvider } from './kvlm-hover-provider.js';

/** Hover for KVLM fields, nodes, collections and queries. */
export const KvlmLspProviders = {
    HoverProvider: (services: LangiumServices) => new KvlmHoverProvider(services),
};
