/**
 * The kvmod commands as LSP `workspace/executeCommand` handlers, so the VS Code client stays a thin shell
 * and the commands can be tested over stdio. The handler only checks arguments and dispatches; the work is
 * done by `KvmodCommandActions`, which the server entry wires to the pipeline (the language layer must not
 * import the pipeline).
 */
import type { Module } from 'langium';
import { KvmodNodeKindProvider } from './kvmod-node-kind-provider.js';
import {
    AbstractExecuteCommandHandler,
    type ExecuteCommandAcceptor,
    type LangiumSharedServices,
    type PartialLangiumSharedServices,
} from 'langium/lsp';

/** The command identifiers the server answers (the client's palette commands call these). */
export const KvmodServerCommands = {
    Transform: 'kvmod.server.transform',
    Generate: 'kvmod.server.generate',
    ExplainMerges: 'kvmod.server.explainMerges',
    ListTargets: 'kvmod.server.listTargets',
    Load: 'kvmod.server.load',
    Verify: 'kvmod.server.verify',
} as const;

/** The user's settings as the client passes them (the `kvmod.*` configuration, all optional). */
export interface KvmodCommandSettings {
    /** `kvmod.merge.threshold` */
    threshold?: number;
    /** `kvmod.merge.policy`: safe, paper or none. */
    policy?: 'safe' | 'paper' | 'none' | 'cost';
    /** `kvmod.output.folder`, relative to the model's folder unless absolute. */
    outputFolder?: string;
    /** `kvmod.templates.folder`, relative to the model's folder unless absolute. */
    templatesFolder?: string;
    /** `kvmod.generate.target` */
    target?: string;
    /** The chosen target's options by name (the `kvmod.<target>.<option>` settings and the quick pick's choice). */
    targetOptions?: Record<string, string | number | boolean>;
    /** `kvmod.runtime.redisUrl`: the server of Load and Verify when the config file (and REDIS_URL) name none. */
    redisUrl?: string;
    /** `kvmod.runtime.dataFile`: their instance data, relative to the model's folder (empty: synthetic data). */
    dataFile?: string;
}

/** The single argument of every kvmod command: the model document and the settings. */
export interface KvmodCommandArgs {
    /** The URI of the `.pidm` document the command runs on. */
    uri: string;
    settings?: KvmodCommandSettings;
}

/** A problem found while running a command, already formatted as `path:line:col: severity: message [code]`. */
export interface KvmodCommandResult {
    /** False when the command stopped on errors. */
    ok: boolean;
    /** Human-readable lines for the output channel (diagnostics, decisions, written files). */
    messages: string[];
    /** URIs of the files written, the first one is what the client opens. */
    written: string[];
}

/** The result of `kvmod.server.explainMerges`. */
export interface KvmodExplainResult extends KvmodCommandResult {
    /** The explanation, one decision per paragraph. */
    text: string;
}

/** A target option as its target declares it, for the client's settings and quick pick. */
export interface KvmodTargetOptionInfo {
    /** The option's name; its setting is `kvmod.<target>.<name>`. */
    name: string;
    type: 'choice' | 'boolean' | 'integer' | 'string';
    /** The allowed values of a choice option. */
    choices?: string[];
    default: string | number | boolean;
    description: string;
    /** Whether each value has its own output folder (the quick pick offers one item per value). */
    outputFolder?: boolean;
}

/** One output folder of a target (`redis: redisearch1`, `typescript: redis-core`) and the option values that select it. */
export interface KvmodTargetVariantInfo {
    label: string;
    /** The value of every option that decides the folder, defaults included. */
    options: Record<string, string | number | boolean>;
}

/** A target and its declared options, for the client's quick pick. */
export interface KvmodTargetInfo {
    name: string;
    description?: string;
    options: KvmodTargetOptionInfo[];
    /** One per output folder the target can write: the quick pick offers one item each. */
    variants: KvmodTargetVariantInfo[];
}

/** What the commands do; the server entry implements it with the pipeline. */
export interface KvmodCommandActions {
    transform(args: KvmodCommandArgs): Promise<KvmodCommandResult>;
    generate(args: KvmodCommandArgs): Promise<KvmodCommandResult>;
    explainMerges(args: KvmodCommandArgs): Promise<KvmodExplainResult>;
    listTargets(): Promise<KvmodTargetInfo[]>;
    /** Loads the data into the configured server (`kvmod load`). */
    load(args: KvmodCommandArgs): Promise<KvmodCommandResult>;
    /** Loads the data and checks every query against the oracle (`kvmod verify`). */
    verify(args: KvmodCommandArgs): Promise<KvmodCommandResult>;
}

/** Dispatches `workspace/executeCommand` requests to the actions after checking the argument's shape. */
export class KvmodCommandHandler extends AbstractExecuteCommandHandler {
    constructor(private readonly actions: KvmodCommandActions) {
        super();
    }

    override registerCommands(acceptor: ExecuteCommandAcceptor): void {
        // registerCommands runs in the base constructor, before `actions` is assigned: defer the lookup.
        acceptor(KvmodServerCommands.Transform, (args) => this.actions.transform(commandArgs(args)));
        acceptor(KvmodServerCommands.Generate, (args) => this.actions.generate(commandArgs(args)));
        acceptor(KvmodServerCommands.ExplainMerges, (args) => this.actions.explainMerges(commandArgs(args)));
        acceptor(KvmodServerCommands.ListTargets, () => this.actions.listTargets());
        acceptor(KvmodServerCommands.Load, (args) => this.actions.load(commandArgs(args)));
        acceptor(KvmodServerCommands.Verify, (args) => this.actions.verify(commandArgs(args)));
    }
}

/** Reads the single `{ uri, settings }` argument; a malformed call is a programming error in the client. */
function commandArgs(args: unknown[]): KvmodCommandArgs {
    const first = args[0] as Partial<KvmodCommandArgs> | undefined;
    if (!first || typeof first.uri !== 'string') {
        throw new Error('kvmod commands take one argument { uri, settings }.');
    }
    return { uri: first.uri, settings: first.settings ?? {} };
}

/** The language server's shared services: the command handler and the outline's symbol kinds. */
export function createKvmodServerModule(
    createActions: (shared: LangiumSharedServices) => KvmodCommandActions,
): Module<LangiumSharedServices, PartialLangiumSharedServices> {
    return {
        lsp: {
            ExecuteCommandHandler: (shared) => new KvmodCommandHandler(createActions(shared)),
            NodeKindProvider: () => new KvmodNodeKindProvider(),
        },
    };
}
