/**
 * Both languages' services without the editor's (`lsp`), for batch runs (the command line): the same languages
 * as `createKvmodServices` (kvmod-module.ts) makes them, on Langium's core modules. The editor's services pull
 * in Langium's LSP modules and the language server library (~500 KB of code that a command would compile and
 * partly run at start-up, and never use); nothing this module imports does.
 */
import {
    createDefaultCoreModule,
    createDefaultSharedCoreModule,
    EmptyFileSystem,
    inject,
    type DefaultSharedCoreModuleContext,
    type LangiumSharedCoreServices,
    type Module,
    type PartialLangiumCoreServices,
} from 'langium';
import { KvmodBatchModule, KvmodParserModule } from './common/kvmod-parser.js';
import { KvmodTraversalModule } from './common/ast-traversal.js';
import { KvmodGeneratedSharedModule, KvlmGeneratedModule, PidmGeneratedModule } from './generated/module.js';
import { KvlmCoreModule, type KvlmCoreServices } from './kvlm/kvlm-core-module.js';
import { registerKvlmValidationChecks } from './kvlm/kvlm-validator.js';
import { registerKvlmSourceChecks } from './kvlm/kvlm-source-check.js';
import { PidmBatchModule } from './pidm/pidm-batch-parser.js';
import { PidmCoreModule, type PidmCoreServices } from './pidm/pidm-core-module.js';
import { registerPidmValidationChecks } from './pidm/pidm-validator.js';

/** The shared services and both languages' services, without the editor's. */
export interface KvmodCoreServices {
    shared: LangiumSharedCoreServices;
    Pidm: PidmCoreServices;
    Kvlm: KvlmCoreServices;
}

/**
 * Creates the shared services and both languages without the editor's services. `batch`: the services of one
 * command-line run (common/kvmod-parser.ts `KvmodBatchModule`, and PIDM's batch parser, pidm/pidm-batch-parser.ts);
 * without it, the languages exactly as the editor parses them. `batchParser: false` keeps Langium's lean parser for
 * PIDM in batch services, and `pidmModule` adds PIDM services (both for tests).
 */
export function createKvmodCoreServices(
    context: Partial<DefaultSharedCoreModuleContext> = {},
    options: {
        batch?: boolean;
        batchParser?: boolean;
        pidmModule?: Module<PidmCoreServices, PartialLangiumCoreServices>;
    } = {},
): KvmodCoreServices {
    const fileSystemProvider = context.fileSystemProvider ?? EmptyFileSystem.fileSystemProvider;
    const shared = inject(
        createDefaultSharedCoreModule({ ...context, fileSystemProvider }),
        KvmodGeneratedSharedModule,
    );
    const pidmBatch = options.batch ? (options.batchParser === false ? KvmodBatchModule : PidmBatchModule) : undefined;
    const Pidm = inject(
        createDefaultCoreModule({ shared }),
        PidmGeneratedModule,
        KvmodParserModule,
        KvmodTraversalModule,
        PidmCoreModule,
        options.pidmModule,
        pidmBatch,
    );
    const Kvlm = inject(
        createDefaultCoreModule({ shared }),
        KvlmGeneratedModule,
        KvmodParserModule,
        KvmodTraversalModule,
        KvlmCoreModule,
        options.batch ? KvmodBatchModule : undefined,
    );
    return registerKvmodLanguages({ shared, Pidm, Kvlm });
}

/** Registers both languages with the shared services and their checks (core services and the editor's alike). */
export function registerKvmodLanguages<S extends KvmodCoreServices>(services: S): S {
    services.shared.ServiceRegistry.register(services.Pidm);
    services.shared.ServiceRegistry.register(services.Kvlm);
    registerPidmValidationChecks(services.Pidm);
    registerKvlmValidationChecks(services.Kvlm);
    registerKvlmSourceChecks(services.Kvlm);
    return services;
}
