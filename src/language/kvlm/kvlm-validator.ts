/**
 * KVLM validation: a transformation bug shows up here as a diagnostic with a stable code, not as a
 * wrong script downstream.
 */
import type { ValidationAcceptor, ValidationChecks } from 'langium';
import type { Collection, KvmodAstType } from '../generated/ast.js';
import type { KvlmServices } from './kvlm-module.js';

/** Stable codes of KVLM diagnostics. */
export const KvlmIssueCodes = {
    DuplicateName: 'kvlm.duplicate-name',
} as const;

/** Registers the KVLM checks with Langium's validation registry. */
export function registerKvlmValidationChecks(services: KvlmServices): void {
    const registry = services.validation.ValidationRegistry;
    const validator = services.validation.KvlmValidator;
    const checks: ValidationChecks<KvmodAstType> = {
        Collection: [validator.checkFieldNamesAreUnique],
    };
    registry.register(checks, validator);
}

/** The KVLM checks. */
export class KvlmValidator {
    checkFieldNamesAreUnique(collection: Collection, accept: ValidationAcceptor): void {
        const seen = new Set<string>();
        for (const field of collection.fields) {
            if (seen.has(field.name)) {
                accept('error', `Field '${field.name}' is declared twice in collection '${collection.name}'.`, {
                    node: field,
                    property: 'name',
                    code: KvlmIssueCodes.DuplicateName,
                });
            }
            seen.add(field.name);
        }
    }
}
