/**
 * The KVLM language's services: the `KvlmAddedServices` / `KvlmServices` / `KvlmModule` triple.
 */
import type { LangiumServices, PartialLangiumServices } from 'langium/lsp';
import type { Module } from 'langium';
import { KvlmFormatter } from './kvlm-formatter.js';
import { KvlmCoreModule, type KvlmAddedServices } from './kvlm-core-module.js';
import { KvlmLspProviders } from '../lsp/kvlm-lsp-module.js';

export type { KvlmAddedServices };

/** All services of the KVLM language. */
export type KvlmServices = LangiumServices & KvlmAddedServices;

/** Overrides and additions of the KVLM language (the checks themselves are registered by `registerKvlmValidationChecks`). */
export const KvlmModule: Module<KvlmServices, PartialLangiumServices & KvlmAddedServices> = {
    ...(KvlmCoreModule as Module<KvlmServices, PartialLangiumServices & KvlmAddedServices>),
    lsp: {
        ...KvlmLspProviders,
        Formatter: () => new KvlmFormatter(),
    },
};
