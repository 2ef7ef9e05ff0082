/**
 * The PIDM language's editor services that go beyond Langium's defaults; `pidm-module.ts` spreads them
 * into its `lsp` section.
 */
import type { LangiumServices } from 'langium/lsp';
import { PidmCompletionProvider } from './pidm-completion-provider.js';
import { PidmHoverProvider } from './pidm-hover-provider.js';
import { PidmRenameProvider } from './pidm-rename-provider.js';

/** Completion, hover and rename providers for PIDM. */
export const PidmLspProviders = {
    CompletionProvider: (services: LangiumServices) => new PidmCompletionProvider(services),
    HoverProvider: (services: LangiumServices) => new PidmHoverProvider(services),
    RenameProvider: (services: LangiumServices) => new PidmRenameProvider(services),
};
