/**
 * The PIDM language's services: the `PidmAddedServices` / `PidmServices` / `PidmModule` triple of
 * Langium's multi-language examples.
 */
import type { LangiumServices, PartialLangiumServices } from 'langium/lsp';
import type { Module } from 'langium';
import type { PidmValidator } from './pidm-validator.js';
import { PidmCoreModule } from './pidm-core-module.js';
import { PidmCodeActionProvider } from './pidm-code-actions.js';
import { PidmFormatter } from './pidm-formatter.js';
import { PidmLspProviders } from '../lsp/pidm-lsp-module.js';
import type { QueryCollectionLookup } from '../lsp/pidm-hover-provider.js';

/** Services the PIDM language adds to Langium's defaults. */
export type PidmAddedServices = {
    validation: {
        PidmValidator: PidmValidator;
    };
    lsp: {
        /** Which collection serves a query, for the hover; injected by the language server's composition root. */
        QueryCollectionLookup?: QueryCollectionLookup;
    };
};

/** All services of the PIDM language. */
export type PidmServices = LangiumServices & PidmAddedServices;

/** What a module may add to or override in the PIDM services (the language server's composition root does). */
export type PartialPidmServices = PartialLangiumServices & DeepPartialPidmAdded;

type DeepPartialPidmAdded = { validation?: Partial<PidmAddedServices['validation']>; lsp?: PidmAddedServices['lsp'] };

/** Overrides and additions of the PIDM language. */
export const PidmModule: Module<PidmServices, PartialLangiumServices & PidmAddedServices> = {
    ...(PidmCoreModule as Module<PidmServices, PartialLangiumServices & PidmAddedServices>),
    lsp: {
        ...PidmLspProviders,
        CodeActionProvider: () => new PidmCodeActionProvider(),
        Formatter: () => new PidmFormatter(),
    },
};
