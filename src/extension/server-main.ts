/**
 * The language server's entry point and composition root (bundled as `dist/server.cjs`): both languages
 * over one stdio or IPC connection, plus what only a front end may wire in — the kvmod commands (the
 * pipeline) and the query hover's "served by" line (the transformation), injected as Langium services.
 */
import { startLanguageServer } from 'langium/lsp';
import { NodeFileSystem } from 'langium/node';
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { createKvmodServices } from '../language/kvmod-module.js';
import { createKvmodServerModule } from '../language/lsp/kvmod-command-handler.js';
import { keepServerAlive } from '../language/lsp/kvmod-server-guard.js';
import { createPipelineCommandActions } from './server-command-actions.js';
import { createQueryCollectionLookup } from './server-query-hover.js';

const connection = createConnection(ProposedFeatures.all);
keepServerAlive(connection);
const { shared } = createKvmodServices(
    { connection, ...NodeFileSystem },
    createKvmodServerModule(createPipelineCommandActions),
    { lsp: { QueryCollectionLookup: (pidm) => createQueryCollectionLookup(pidm.shared) } },
);
startLanguageServer(shared);
