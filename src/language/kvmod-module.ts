/**
 * The factory for both languages with the editor's services: the language server and the tests create their
 * services here. The command line creates them without the editor's services (kvmod-core-module.ts: the same
 * languages on Langium's core modules, without loading Langium's LSP modules and the language server library).
 */
import { EmptyFileSystem, inject, type Module } from 'langium';
import {
    createDefaultModule,
    createDefaultSharedModule,
    type DefaultSharedModuleContext,
    type LangiumSharedServices,
    type PartialLangiumSharedServices,
} from 'langium/lsp';
import { KvmodParserModule } from './common/kvmod-parser.js';
import { KvmodTraversalModule } from './common/ast-traversal.js';
import { KvmodGeneratedSharedModule, KvlmGeneratedModule, PidmGeneratedModule } from './generated/module.js';
import { KvlmModule, type KvlmServices } from './kvlm/kvlm-module.js';
import { PidmModule, type PartialPidmServices, type PidmServices } from './pidm/pidm-module.js';
import { registerKvmodLanguages } from './kvmod-core-module.js';

/** The shared services and both languages' services. */
export interface KvmodServices {
    shared: LangiumSharedServices;
    Pidm: PidmServices;
    Kvlm: KvlmServices;
}

/**
 * Creates the shared services and both languages, as the editor has them. Pass a connection for the language
 * server; pass a file system provider (`NodeFileSystem`) to read files, or none for in-memory use. A command-line
 * run's services (the batch parser and linker) are `createKvmodCoreServices`' `batch` ones.
 */
export function createKvmodServices(
    context: Partial<DefaultSharedModuleContext> = {},
    /** Extra shared services; the language server adds its `lsp.ExecuteCommandHandler` here. */
    sharedModule?: Module<LangiumSharedServices, PartialLangiumSharedServices>,
    /** Extra PIDM services; the language server adds the hover's `lsp.QueryCollectionLookup` here. */
    pidmModule?: Module<PidmServices, PartialPidmServices>,
): KvmodServices {
    const fileSystemProvider = context.fileSystemProvider ?? EmptyFileSystem.fileSystemProvider;
    const shared = inject(
        createDefaultSharedModule({ ...context, fileSystemProvider }),
        KvmodGeneratedSharedModule,
        sharedModule,
    );
    const Pidm = inject(
        createDefaultModule({ shared }),
        PidmGeneratedModule,
        KvmodParserModule,
        KvmodTraversalModule,
        PidmModule,
        pidmModule,
    );
    const Kvlm = inject(
        createDefaultModule({ shared }),
        KvlmGeneratedModule,
        KvmodParserModule,
        KvmodTraversalModule,
        KvlmModule,
    );
    return registerKvmodLanguages({ shared, Pidm, Kvlm });
}
