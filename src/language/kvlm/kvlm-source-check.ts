/**
 * A KVLM model checked against the PIDM it was transformed from (its `source`): every collection's root
 * entity, every included reference (its target entity and cardinality) and every field's attribute and
 * type must exist in that PIDM, so that a hand edit such as `Aircraft.capacityy` is an error with a
 * did-you-mean instead of a field that `generate` would happily index and no data ever fills.
 * The check runs when the source PIDM is a document of the same workspace (the editor's folder, or the
 * files a command loads); a KVLM without a reachable source is checked on its own only.
 */
import { EmptyFileSystemProvider, UriUtils, type ValidationAcceptor, type ValidationChecks } from 'langium';
import {
    isPidmModel,
    isReference,
    type Attribute,
    type Collection,
    type Entity,
    type IdAttribute,
    type KvlmModel,
    type KvmodAstType,
    type Node,
    type PidmModel,
} from '../generated/ast.js';
import { didYouMean, didYouMeanSentence } from '../common/did-you-mean.js';
import { attributeType, cardinalityKind, identifierOf, SURROGATE_ID } from '../pidm/pidm-semantics.js';
import type { KvlmCoreServices } from './kvlm-core-module.js';

/** The codes of the source checks. */
export const KvlmSourceIssueCodes = {
    /** A root or included entity that the source PIDM does not declare. */
    UnknownEntity: 'kvlm.source-unknown-entity',
    /** An included reference the parent node's entity does not have, or whose target or cardinality differ. */
    UnknownReference: 'kvlm.source-unknown-reference',
    /** A field whose attribute the node's entity does not have. */
    UnknownAttribute: 'kvlm.source-unknown-attribute',
    /** A field whose type is not the attribute's type. */
    TypeMismatch: 'kvlm.source-type-mismatch',
    /** A `source` naming a file that does not exist (the model cannot be checked against it, nor loaded). */
    Missing: 'kvlm.source-missing',
} as const;

/** Registers the source checks on KVLM models. */
export function registerKvlmSourceChecks(services: KvlmCoreServices): void {
    const checks: ValidationChecks<KvmodAstType> = {
        KvlmModel: async (model, accept) => {
            checkAgainstSource(services, model, accept);
            await checkSourceExists(services, model, accept);
        },
    };
    services.validation.ValidationRegistry.register(checks);
}

/**
 * KVLM models the transformation has just built from the PIDM their `source` names: they agree with it by
 * construction, so the in-memory check of a transformation's output (pipeline/transform.ts) does not compare them
 * with it again, whichever folder the command runs in.
 * That a transformation's printed KVLM passes these checks is a test property (kvlm-source-check.test.ts).
 */
const builtFromSource = new WeakSet<KvlmModel>();

/** Marks a KVLM model as the transformation's output for the PIDM its `source` names (see `builtFromSource`). */
export function markBuiltFromSource(model: KvlmModel): void {
    builtFromSource.add(model);
}

/** The PIDM model a KVLM model names as its `source`, when it is loaded in the same workspace. */
export function sourceModelOf(services: KvlmCoreServices, model: KvlmModel): PidmModel | undefined {
    const uri = model.$document?.uri;
    if (!model.source || !uri) return undefined;
    const sourceUri = UriUtils.resolvePath(UriUtils.dirname(uri), model.source);
    const root = services.shared.workspace.LangiumDocuments.getDocument(sourceUri)?.parseResult.value;
    return isPidmModel(root) ? root : undefined;
}

function checkAgainstSource(services: KvlmCoreServices, model: KvlmModel, accept: ValidationAcceptor): void {
    if (builtFromSource.has(model)) return;
    const pidm = sourceModelOf(services, model);
    if (!pidm) return;
    const entities = new Map((pidm.entities ?? []).filter((e) => typeof e.name === 'string').map((e) => [e.name, e]));
    for (const collection of model.collections ?? []) checkCollection(collection, entities, model.source!, accept);
}

/**
 * A `source` naming no file is a warning on its line: without it the model is checked on its own only, and
 * `load` and `verify` need it. Asked of the workspace's file system only when it has one (services reading no
 * files, such as an in-memory check of texts, cannot tell a missing file from one they were not given).
 */
async function checkSourceExists(
    services: KvlmCoreServices,
    model: KvlmModel,
    accept: ValidationAcceptor,
): Promise<void> {
    const uri = model.$document?.uri;
    if (!model.source || !uri || builtFromSource.has(model)) return;
    const sourceUri = UriUtils.resolvePath(UriUtils.dirname(uri), model.source);
    if (services.shared.workspace.LangiumDocuments.hasDocument(sourceUri)) return;
    const files = services.shared.workspace.FileSystemProvider;
    if (files instanceof EmptyFileSystemProvider || (await files.exists(sourceUri))) return;
    accept(
        'warning',
        `The source file '${model.source}' does not exist (looked for ${sourceUri.fsPath}): the collections are not checked against a PIDM model, and load and verify need it.`,
        { node: model, property: 'source', code: KvlmSourceIssueCodes.Missing },
    );
}

function checkCollection(
    collection: Collection,
    entities: Map<string, Entity>,
    source: string,
    accept: ValidationAcceptor,
): void {
    const entityOfNode = new Map<Node, Entity | undefined>();
    const root = collection.root;
    if (root?.entity) {
        const entity = entities.get(root.entity);
        entityOfNode.set(root, entity);
        if (!entity) {
            const suggestions = didYouMean(root.entity, [...entities.keys()]);
            accept('error', `Entity '${root.entity}' is not declared in ${source}.${didYouMeanSentence(suggestions)}`, {
                node: root,
                property: 'entity',
                code: KvlmSourceIssueCodes.UnknownEntity,
                data: { code: KvlmSourceIssueCodes.UnknownEntity, suggestions },
            });
        }
    }
    for (const node of collection.nodes ?? []) {
        const parent = node.parent?.ref;
        const parentEntity = parent ? entityOfNode.get(parent) : undefined;
        // An unknown parent is reported where it is declared (or by linking).
        if (!parentEntity || !node.reference) {
            entityOfNode.set(node, undefined);
            continue;
        }
        const references = (parentEntity.members ?? []).filter(isReference);
        const reference = references.find((member) => member.name === node.reference);
        if (!reference) {
            entityOfNode.set(node, undefined);
            const suggestions = didYouMean(
                node.reference,
                references.map((member) => member.name),
            );
            accept(
                'error',
                `Entity ${parentEntity.name} of ${source} has no reference '${node.reference}'.${didYouMeanSentence(suggestions)}`,
                {
                    node,
                    property: 'reference',
                    code: KvlmSourceIssueCodes.UnknownReference,
                    data: { code: KvlmSourceIssueCodes.UnknownReference, suggestions },
                },
            );
            continue;
        }
        // By name, not by the link: the source may be loaded only as context (not linked).
        const targetName = reference.target?.$refText;
        const target = targetName ? entities.get(targetName) : undefined;
        entityOfNode.set(node, target);
        if (targetName && node.entity && targetName !== node.entity) {
            accept(
                'error',
                `Reference ${parentEntity.name}.${reference.name} of ${source} leads to ${targetName}, not ${node.entity}.`,
                {
                    node,
                    property: 'entity',
                    code: KvlmSourceIssueCodes.UnknownReference,
                    data: { code: KvlmSourceIssueCodes.UnknownReference, suggestions: [targetName] },
                },
            );
        }
        const cardinality = cardinalityKind(reference.cardinality);
        if (node.cardinality && node.cardinality !== cardinality) {
            accept(
                'error',
                `Reference ${parentEntity.name}.${reference.name} of ${source} is ${cardinality}, not ${node.cardinality}.`,
                {
                    node,
                    property: 'cardinality',
                    code: KvlmSourceIssueCodes.UnknownReference,
                    data: { code: KvlmSourceIssueCodes.UnknownReference, suggestions: [cardinality] },
                },
            );
        }
    }
    for (const field of collection.fields ?? []) {
        const node = field.node?.ref;
        const entity = node ? entityOfNode.get(node) : undefined;
        if (!entity || !field.attribute) continue;
        const attributes = (entity.members ?? []).filter(
            (member): member is Attribute | IdAttribute => !isReference(member),
        );
        const attribute = attributes.find((member) => member.name === field.attribute);
        if (!attribute) {
            // An entity without an identifier gets the surrogate one (text) from the transformation.
            if (field.attribute === SURROGATE_ID && !identifierOf(entity)) continue;
            const suggestions = didYouMean(
                field.attribute,
                attributes.map((member) => member.name),
            );
            accept(
                'error',
                `Entity ${entity.name} of ${source} has no attribute '${field.attribute}'.${didYouMeanSentence(suggestions)}`,
                {
                    node: field,
                    property: 'attribute',
                    code: KvlmSourceIssueCodes.UnknownAttribute,
                    data: { code: KvlmSourceIssueCodes.UnknownAttribute, suggestions },
                },
            );
            continue;
        }
        const type = attributeType(attribute);
        if (field.type && field.type !== type) {
            accept(
                'error',
                `Field '${field.name}' is ${field.type}, but ${entity.name}.${attribute.name} of ${source} is ${type}.`,
                {
                    node: field,
                    property: 'type',
                    code: KvlmSourceIssueCodes.TypeMismatch,
                    data: { code: KvlmSourceIssueCodes.TypeMismatch, suggestions: [type] },
                },
            );
        }
    }
}
