/**
 * The PIDM language's services: the `PidmAddedServices` / `PidmServices` / `PidmModule` triple of
 * Langium's multi-language examples.
 */
import type { LangiumServices, PartialLangiumServices } from 'langium/lsp';
import type { Module } from 'langium';
import { PidmNameProvider } from './pidm-name-provider.js';
import { PidmScopeProvider } from './pidm-scope-provider.js';
import { PidmScopeComputation } from './pidm-scope-computation.js';
import { PidmValidator } from './pidm-validator.js';
import { PidmValueConverter } from './pidm-value-converter.js';
import { PidmLexer } from './pidm-lexer.js';
import { PidmDocumentValidator } from './pidm-document-validator.js';
import { PidmCodeActionProvider } from './pidm-code-actions.js';
import { PidmFormatter } from './pidm-formatter.js';
import { PidmParserErrorMessageProvider } from './pidm-parser-messages.js';
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
    parser: {
        ValueConverter: () => new PidmValueConverter(),
        Lexer: (services) => new PidmLexer(services),
        ParserErrorMessageProvider: () => new PidmParserErrorMessageProvider(),
    },
    references: {
        NameProvider: () => new PidmNameProvider(),
        ScopeProvider: (services) => new PidmScopeProvider(services),
        ScopeComputation: (services) => new PidmScopeComputation(services),
    },
    validation: {
        PidmValidator: (services) => new PidmValidator(services),
        DocumentValidator: (services) => new PidmDocumentValidator(services),
    },
    lsp: {
        ...PidmLspProviders,
        CodeActionProvider: () => new PidmCodeActionProvider(),
        Formatter: () => new PidmFormatter(),
    },
};
