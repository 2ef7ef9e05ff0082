/**
 * The KVLM language's services: the `KvlmAddedServices` / `KvlmServices` / `KvlmModule` triple.
 */
import type { LangiumServices, PartialLangiumServices } from 'langium/lsp';
import type { Module } from 'langium';
import { KvlmValidator } from './kvlm-validator.js';

/** Services the KVLM language adds to Langium's defaults. */
export type KvlmAddedServices = {
    validation: {
        KvlmValidator: KvlmValidator;
    };
};

/** All services of the KVLM language. */
export type KvlmServices = LangiumServices & KvlmAddedServices;

/** Overrides and additions of the KVLM language. */
export const KvlmModule: Module<KvlmServices, PartialLangiumServices & KvlmAddedServices> = {
    validation: {
        KvlmValidator: () => new KvlmValidator(),
    },
};
