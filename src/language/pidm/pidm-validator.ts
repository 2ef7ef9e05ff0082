/**
 * PIDM validation: every check has a stable issue code (`PidmIssueCodes`) that tests and quick fixes
 * rely on, and a message a modeler understands.
 */
import type { ValidationAcceptor, ValidationChecks } from 'langium';
import type { KvmodAstType, Query } from '../generated/ast.js';
import type { PidmServices } from './pidm-module.js';

/** Stable codes of PIDM diagnostics. */
export const PidmIssueCodes = {
    EmptySelect: 'pidm.empty-select',
} as const;

/** Registers the PIDM checks with Langium's validation registry. */
export function registerPidmValidationChecks(services: PidmServices): void {
    const registry = services.validation.ValidationRegistry;
    const validator = services.validation.PidmValidator;
    const checks: ValidationChecks<KvmodAstType> = {
        Query: [validator.checkQuerySelectsSomething],
    };
    registry.register(checks, validator);
}

/** The PIDM checks; each method reads as the rule it enforces. */
export class PidmValidator {
    checkQuerySelectsSomething(query: Query, accept: ValidationAcceptor): void {
        if (query.projections.length === 0) {
            accept('error', `Query '${query.name}' selects nothing.`, { node: query, property: 'name', code: PidmIssueCodes.EmptySelect });
        }
    }
}
