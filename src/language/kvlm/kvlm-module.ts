/**
 * The KVLM language's services: the `KvlmAddedServices` / `KvlmServices` / `KvlmModule` triple.
 */
import type { LangiumServices, PartialLangiumServices } from 'langium/lsp';
import type { Module } from 'langium';
import { KvlmDocumentValidator } from './kvlm-document-validator.js';
import { KvlmFormatter } from './kvlm-formatter.js';
import { KvlmScopeProvider } from './kvlm-scope-provider.js';
import { KvlmValidator } from './kvlm-validator.js';
import { KvlmLspProviders } from '../lsp/kvlm-lsp-module.js';

/** Services the KVLM language adds to Langium's defaults. */
export type KvlmAddedServices = {
    validation: {
        KvlmValidator: KvlmValidator;
    };
};

/** All services of the KVLM language. */
export type KvlmServices = LangiumServices & KvlmAddedServices;

/** Overrides and additions of the KVLM language (the checks themselves are registered by `registerKvlmValidationChecks`). */
export const KvlmModule: Module<KvlmServices, PartialLangiumServices & KvlmAddedServices> = {
    references: {
        ScopeProvider: (services) => new KvlmScopeProvider(services),
    },
    validation: {
        KvlmValidator: () => new KvlmValidator(),
        DocumentValidator: (services) => new KvlmDocumentValidator(services),
    },
    lsp: {
        ...KvlmLspProviders,
        Formatter: () => new KvlmFormatter(),
    },
};
