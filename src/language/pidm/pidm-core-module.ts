/**
 * The PIDM language's services without the editor's (`lsp`): what batch runs (the command line) use. Nothing here
 * imports Langium's or the language server's LSP modules, so a command does not load them (~500 KB of code);
 * `pidm-module.ts` adds the editor's services to these.
 */
import type { LangiumCoreServices, Module, PartialLangiumCoreServices } from 'langium';
import { PidmNameProvider } from './pidm-name-provider.js';
import { PidmScopeProvider } from './pidm-scope-provider.js';
import { PidmScopeComputation } from './pidm-scope-computation.js';
import { PidmValidator } from './pidm-validator.js';
import { PidmValueConverter } from './pidm-value-converter.js';
import { PidmLexer } from './pidm-lexer.js';
import { PidmDocumentValidator } from './pidm-document-validator.js';
import { PidmParserErrorMessageProvider } from './pidm-parser-messages.js';

/** Services the PIDM language adds to Langium's core services. */
export type PidmAddedCoreServices = {
    validation: {
        PidmValidator: PidmValidator;
    };
};

/** The PIDM language's services without the editor's. */
export type PidmCoreServices = LangiumCoreServices & PidmAddedCoreServices;

/** Overrides and additions of the PIDM language, but the editor's. */
export const PidmCoreModule: Module<PidmCoreServices, PartialLangiumCoreServices & PidmAddedCoreServices> = {
    parser: {
        ValueConverter: () => new PidmValueConverter(),
        Lexer: (services) => new PidmLexer(services),
        ParserErrorMessageProvider: (services) => new PidmParserErrorMessageProvider(services.Grammar),
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
};
