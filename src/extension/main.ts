/**
 * The VS Code client (bundled as `dist/extension.cjs`): starts the language server and forwards the
 * palette commands to it. Everything that knows about models lives in the server, so this file only
 * collects settings, asks the user, and shows results.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
    LanguageClient,
    TransportKind,
    type LanguageClientOptions,
    type ServerOptions,
} from 'vscode-languageclient/node';
import {
    KvmodServerCommands,
    type KvmodCommandArgs,
    type KvmodCommandResult,
    type KvmodCommandSettings,
    type KvmodExplainResult,
    type KvmodTargetInfo,
} from '../language/lsp/kvmod-command-handler.js';

let client: LanguageClient | undefined;
let output: vscode.OutputChannel | undefined;

/** Starts the language server and registers the kvmod commands. */
export async function activate(context: vscode.ExtensionContext): Promise<void> {
    output = vscode.window.createOutputChannel('kvmod');
    context.subscriptions.push(output);
    client = startClient(context);
    context.subscriptions.push(
        vscode.commands.registerCommand('kvmod.transform', (uri?: vscode.Uri) => transformCommand(uri)),
        vscode.commands.registerCommand('kvmod.generate', (uri?: vscode.Uri) => generateCommand(uri)),
        vscode.commands.registerCommand('kvmod.explainMerges', (uri?: vscode.Uri) => explainCommand(uri)),
        vscode.commands.registerCommand('kvmod.load', (uri?: vscode.Uri) => runtimeCommand(uri, 'load')),
        vscode.commands.registerCommand('kvmod.verify', (uri?: vscode.Uri) => runtimeCommand(uri, 'verify')),
    );
    await client.start();
}

/** Stops the language server. */
export async function deactivate(): Promise<void> {
    await client?.stop();
    client = undefined;
}

function startClient(context: vscode.ExtensionContext): LanguageClient {
    const serverModule = context.asAbsolutePath(path.join('dist', 'server.cjs'));
    const serverOptions: ServerOptions = {
        run: { module: serverModule, transport: TransportKind.ipc },
        debug: {
            module: serverModule,
            transport: TransportKind.ipc,
            options: { execArgv: ['--nolazy', '--inspect=6009'] },
        },
    };
    const watcher = vscode.workspace.createFileSystemWatcher('**/*.{pidm,kvlm}');
    context.subscriptions.push(watcher);
    const clientOptions: LanguageClientOptions = {
        documentSelector: [
            { scheme: 'file', language: 'pidm' },
            { scheme: 'file', language: 'kvlm' },
        ],
        // The server reads `kvmod.merge.*` for the query hover; commands get the settings with each call.
        synchronize: { fileEvents: watcher, configurationSection: 'kvmod' },
    };
    return new LanguageClient('kvmod', 'kvmod language server', serverOptions, clientOptions);
}

/** The model the command runs on: the explorer selection, else the active `.pidm` editor. */
async function targetModel(uri?: vscode.Uri): Promise<vscode.Uri | undefined> {
    const target = uri ?? vscode.window.activeTextEditor?.document.uri;
    if (!target || !target.fsPath.endsWith('.pidm')) {
        void vscode.window.showErrorMessage('kvmod: open or select a .pidm model first.');
        return undefined;
    }
    // The pipeline reads files from disk: save the models first so it sees what the user sees.
    for (const document of vscode.workspace.textDocuments) {
        if (document.isDirty && document.languageId === 'pidm') await document.save();
    }
    return target;
}

function readSettings(uri: vscode.Uri): KvmodCommandSettings {
    const config = vscode.workspace.getConfiguration('kvmod', uri);
    const optional = (key: string): string | undefined => {
        const value = config.get<string>(key);
        return value ? value : undefined;
    };
    return {
        threshold: config.get<number>('merge.threshold'),
        policy: config.get<'safe' | 'paper' | 'none' | 'cost'>('merge.policy'),
        outputFolder: optional('output.folder'),
        templatesFolder: optional('templates.folder'),
        target: optional('generate.target'),
    };
}

/**
 * The `kvmod.<target>.<option>` settings of a target's declared options (package.json's settings are
 * generated from the same declarations by scripts/update-settings.mjs).
 */
function readTargetOptions(uri: vscode.Uri, target: KvmodTargetInfo): Record<string, string | number | boolean> {
    const config = vscode.workspace.getConfiguration(`kvmod.${target.name}`, uri);
    const values: Record<string, string | number | boolean> = {};
    for (const option of target.options) {
        const value = config.get<unknown>(option.name);
        if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
            values[option.name] = value;
    }
    return values;
}

async function runServerCommand<T extends KvmodCommandResult>(
    command: string,
    args: KvmodCommandArgs,
): Promise<T | undefined> {
    if (!client) return undefined;
    try {
        const result = (await client.sendRequest('workspace/executeCommand', { command, arguments: [args] })) as T;
        for (const line of result.messages) output?.appendLine(line);
        if (!result.ok) {
            output?.show(true);
            void vscode.window.showErrorMessage('kvmod: the model has errors; see the kvmod output.');
        }
        return result;
    } catch (error) {
        output?.appendLine(String(error instanceof Error ? error.message : error));
        output?.show(true);
        void vscode.window.showErrorMessage(`kvmod: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
    }
}

async function transformCommand(uri?: vscode.Uri): Promise<void> {
    const model = await targetModel(uri);
    if (!model) return;
    const result = await runServerCommand(KvmodServerCommands.Transform, {
        uri: model.toString(),
        settings: readSettings(model),
    });
    if (result?.ok && result.written[0]) {
        const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(result.written[0]));
        await vscode.window.showTextDocument(document, { preview: false });
    }
}

async function generateCommand(uri?: vscode.Uri): Promise<void> {
    const model = await targetModel(uri);
    if (!model || !client) return;
    const settings = readSettings(model);
    const targets = (await client.sendRequest('workspace/executeCommand', {
        command: KvmodServerCommands.ListTargets,
        arguments: [],
    })) as KvmodTargetInfo[];
    // One item per output folder a target can write (its dialects, or the design a client runs).
    const items = targets.flatMap((target) => {
        const configured = readTargetOptions(model, target);
        const current = (name: string): unknown =>
            configured[name] ?? target.options.find((option) => option.name === name)?.default;
        return target.variants.map((variant) => ({
            label: variant.label,
            description: target.description,
            picked:
                target.name === settings.target &&
                Object.entries(variant.options).every(([name, value]) => current(name) === value),
            target: target.name,
            targetOptions: { ...configured, ...variant.options },
        }));
    });
    if (items.length === 0) {
        void vscode.window.showErrorMessage('kvmod: no generation targets are available.');
        return;
    }
    items.sort((a, b) => Number(b.picked) - Number(a.picked));
    const choice = await vscode.window.showQuickPick(items, { placeHolder: 'Generate for which target?' });
    if (!choice) return;
    const result = await runServerCommand(KvmodServerCommands.Generate, {
        uri: model.toString(),
        settings: { ...settings, target: choice.target, targetOptions: choice.targetOptions },
    });
    if (result?.ok) {
        void vscode.window.showInformationMessage(`kvmod: wrote ${result.written.length} file(s).`);
        output?.show(true);
    }
}

async function explainCommand(uri?: vscode.Uri): Promise<void> {
    const model = await targetModel(uri);
    if (!model) return;
    const result = await runServerCommand<KvmodExplainResult>(KvmodServerCommands.ExplainMerges, {
        uri: model.toString(),
        settings: readSettings(model),
    });
    if (result) {
        output?.appendLine(result.text);
        output?.show(true);
    }
}

/**
 * "Load into Redis" / "Verify against Redis": the server runs `kvmod load` / `kvmod verify` on the configured
 * server (kvmod.config's redis, REDIS_URL, else `kvmod.runtime.redisUrl`) while a notification shows progress;
 * the results go to the kvmod output channel.
 */
async function runtimeCommand(uri: vscode.Uri | undefined, kind: 'load' | 'verify'): Promise<void> {
    const model = await targetModel(uri);
    if (!model || !client) return;
    const settings = readSettings(model);
    const runtime = vscode.workspace.getConfiguration('kvmod.runtime', model);
    const targets = (await client.sendRequest('workspace/executeCommand', {
        command: KvmodServerCommands.ListTargets,
        arguments: [],
    })) as KvmodTargetInfo[];
    // The server lists the default target first (the registry's order).
    const target = targets.find((t) => t.name === settings.target) ?? targets[0];
    const args: KvmodCommandArgs = {
        uri: model.toString(),
        settings: {
            ...settings,
            targetOptions: target ? readTargetOptions(model, target) : {},
            redisUrl: runtime.get<string>('redisUrl') || undefined,
            dataFile: runtime.get<string>('dataFile') || undefined,
        },
    };
    const title = kind === 'load' ? 'kvmod: loading into Redis…' : 'kvmod: verifying against Redis…';
    output?.appendLine(`— ${kind} ${model.fsPath}`);
    const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title },
        async () => {
            try {
                const command = kind === 'load' ? KvmodServerCommands.Load : KvmodServerCommands.Verify;
                return (await client!.sendRequest('workspace/executeCommand', {
                    command,
                    arguments: [args],
                })) as KvmodCommandResult;
            } catch (error) {
                return {
                    ok: false,
                    messages: [`kvmod: ${error instanceof Error ? error.message : String(error)}`],
                    written: [],
                };
            }
        },
    );
    for (const line of result.messages) output?.appendLine(line);
    output?.show(true);
    const last = result.messages.at(-1)?.split('\n').at(-1) ?? '';
    if (result.ok) void vscode.window.showInformationMessage(`kvmod: ${last}`);
    else void vscode.window.showErrorMessage(`kvmod: ${kind} failed: ${last.replace(/^kvmod: /, '')}`);
}
