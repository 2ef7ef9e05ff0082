/**
 * The KVLM language's services without the editor's (`lsp`): what batch runs (the command line) use. Nothing here
 * imports Langium's or the language server's LSP modules (see pidm-core-module.ts); `kvlm-module.ts` adds the
 * editor's services to these.
 */
import type { LangiumCoreServices, Module, PartialLangiumCoreServices } from 'langium';
import { KvlmDocumentValidator } from './kvlm-document-validator.js';
import { KvlmScopeProvider } from './kvlm-scope-provider.js';
import { KvlmValidator } from './kvlm-validator.js';
import { KvlmParserErrorMessageProvider } from './kvlm-parser-messages.js';

/** Services the KVLM language adds to Langium's core services. */
export type KvlmAddedServices = {
    validation: {
        KvlmValidator: KvlmValidator;
    };
};

/** The KVLM language's services without the editor's. */
export type KvlmCoreServices = LangiumCoreServices & KvlmAddedServices;

/** Overrides and additions of the KVLM language, but the editor's (the checks are registered by `registerKvlmValidationChecks`). */
export const KvlmCoreModule: Module<KvlmCoreServices, PartialLangiumCoreServices & KvlmAddedServices> = {
    parser: {
        ParserErrorMessageProvider: () => new KvlmParserErrorMessageProvider(),
    },
    references: {
        ScopeProvider: (services) => new KvlmScopeProvider(services),
    },
    validation: {
        KvlmValidator: () => new KvlmValidator(),
        DocumentValidator: (services) => new KvlmDocumentValidator(services),
    },
};
