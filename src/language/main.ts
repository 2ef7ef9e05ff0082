/**
 * The language server's entry point (bundled as `dist/server.cjs`): both languages over one stdio or IPC
 * connection, plus the kvmod commands and the query hover's "served by" line. It is a front end like the
 * CLI, so it wires in the pipeline and the transformation (from `src/extension/server-*.ts`) that the
 * language services themselves must not import.
 */
import { startLanguageServer } from 'langium/lsp';
import { NodeFileSystem } from 'langium/node';
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { createKvmodServices } from './kvmod-module.js';
import { createKvmodServerModule } from './lsp/kvmod-command-handler.js';
import { pidmHoverHooks } from './lsp/pidm-hover-provider.js';
import { keepServerAlive } from './lsp/kvmod-server-guard.js';
import { createPipelineCommandActions } from '../extension/server-command-actions.js';
import { createQueryCollectionLookup } from '../extension/server-query-hover.js';

const connection = createConnection(ProposedFeatures.all);
keepServerAlive(connection);
const { shared } = createKvmodServices(
    { connection, ...NodeFileSystem },
    createKvmodServerModule(createPipelineCommandActions),
);
pidmHoverHooks.queryCollection = createQueryCollectionLookup(shared);
startLanguageServer(shared);
