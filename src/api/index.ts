/**
 * kvmod's library API (the package's `exports["."]`): the functions the `kvmod` command calls, for scripts
 * and build tools that want the same results without a child process. Documented in docs/command-line.md
 * ("Library API"). A front end like the CLI: it may use every layer, and nothing imports it. The package
 * entry `lib/index.js` loads the Node 20 polyfill first, then re-exports this module.
 *
 *     import { loadWorkspace, transformFiles, generateModels, verifyOnEngine } from 'kvmod';
 */
export { KvmodError, isKvmodError } from '../pipeline/errors.js';
export {
    formatDiagnostic,
    loadTexts,
    loadWorkspace,
    type KvmodDiagnostic,
    type LoadedWorkspace,
} from '../pipeline/load.js';
export {
    explainDecisions,
    transformFiles,
    type TransformFilesOptions,
    type TransformFilesResult,
} from '../pipeline/transform.js';
export { loadDesign, ModelLoadError, type DesignLoadOptions, type LoadedDesign } from '../pipeline/design.js';
export {
    CONFIG_FILE_NAME,
    CONFIG_FILE_NAMES,
    defineConfig,
    findConfigFile,
    loadConfig,
    type KvmodConfig,
    type LoadedConfig,
} from '../pipeline/config.js';
export { generateModels, type GenerateModelsOptions, type ModelGenerationResult } from '../pipeline/generate.js';
export {
    loadIntoEngine,
    verifyOnEngine,
    type LoadActionResult,
    type RuntimeRunOptions,
    type VerifyActionOptions,
    type VerifyActionResult,
} from '../runtime/runtime-actions.js';
export { formatVerdicts, verdictStatus, type QueryVerdict, type VerdictStatus } from '../runtime/verify.js';
export { readDataSpec, type DataSpec } from '../runtime/data-spec.js';
export { generateInstanceData, type GenerateOptions } from '../runtime/data-generator.js';
export { readInstanceData, type InstanceData } from '../runtime/instance-data.js';
export { loadRuntimeModel } from '../runtime/runtime-design.js';
export { main as runCli } from '../cli/main.js';
