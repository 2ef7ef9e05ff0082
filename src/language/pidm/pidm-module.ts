/**
 * The PIDM language's services: the `PidmAddedServices` / `PidmServices` / `PidmModule` triple of
 * Langium's multi-language examples.
 */
import type { LangiumServices, PartialLangiumServices } from 'langium/lsp';
import type { Module } from 'langium';
import { PidmNameProvider } from './pidm-name-provider.js';
import { PidmScopeProvider } from './pidm-scope-provider.js';
import { PidmValidator } from './pidm-validator.js';

/** Services the PIDM language adds to Langium's defaults. */
export type PidmAddedServices = {
    validation: {
        PidmValidator: PidmValidator;
    };
};

/** All services of the PIDM language. */
export type PidmServices = LangiumServices & PidmAddedServices;

/** Overrides and additions of the PIDM language. */
export const PidmModule: Module<PidmServices, PartialLangiumServices & PidmAddedServices> = {
    references: {
        NameProvider: () => new PidmNameProvider(),
        ScopeProvider: (services) => new PidmScopeProvider(services),
    },
    validation: {
        PidmValidator: () => new PidmValidator(),
    },
};
