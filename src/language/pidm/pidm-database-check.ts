/**
 * The checks of the `database` declaration (issue 30: the database has a name of its own), apart from the other
 * PIDM checks: they only run on a model that declares its database, and read nothing the others compute.
 */
import type { LangiumSharedCoreServices, ValidationAcceptor, ValidationChecks } from 'langium';
import { isPidmModel, type Database, type KvmodAstType, type PidmModel } from '../generated/ast.js';
import { modelSetIndex } from '../common/model-sets.js';
import { PidmIssueCodes } from './pidm-issue-codes.js';

/** What a database name is made of: it is part of Redis keys, Lua function names and the design record's key. */
export const DATABASE_NAME = /^[_a-zA-Z]\w*$/;

/** A name made into a database name: every other character as `_`, `_` before a leading digit. */
export function cleanDatabaseName(name: string): string {
    const cleaned = name.replace(/\W/g, '_');
    if (cleaned === '') return 'kvmod';
    return /^\d/.test(cleaned) ? `_${cleaned}` : cleaned;
}

/** The `database` checks, for `ValidationRegistry.register`. */
export function databaseChecks(shared: () => LangiumSharedCoreServices): ValidationChecks<KvmodAstType> {
    return {
        Database: checkDatabaseNameIsUsable,
        PidmModel: (model, accept) => checkDatabaseIsDeclaredOnce(model, accept, shared()),
    };
}

/** A database name is letters, digits and `_`, not starting with a digit. */
export function checkDatabaseNameIsUsable(database: Database, accept: ValidationAcceptor): void {
    if (database.name === undefined || DATABASE_NAME.test(database.name)) return;
    accept(
        'error',
        `'${database.name}' is not a database name: use letters, digits and '_', not starting with a digit (for example ${cleanDatabaseName(database.name)}).`,
        {
            node: database,
            property: 'name',
            code: PidmIssueCodes.InvalidDatabaseName,
            data: { code: PidmIssueCodes.InvalidDatabaseName },
        },
    );
}

/**
 * A model declares its database at most once, over all its files: two declarations would leave which one names the
 * database to the order of the files. Every declaration of such a model is reported, each naming the others.
 */
export function checkDatabaseIsDeclaredOnce(
    model: PidmModel,
    accept: ValidationAcceptor,
    shared: LangiumSharedCoreServices,
): void {
    const own = model.databases ?? [];
    if (own.length === 0) return;
    const all: Database[] = [];
    const uri = model.$document?.uri;
    const members = uri ? new Set(modelSetIndex(shared).setOf(uri).files) : undefined;
    let seen = false;
    for (const document of shared.workspace.LangiumDocuments.all) {
        const root = document.parseResult?.value;
        if (!isPidmModel(root) || !members?.has(document.uri.toString())) continue;
        if (root === model) seen = true;
        all.push(...(root.databases ?? []));
    }
    // A model outside the workspace (validated on its own) counts as one more file of it.
    if (!seen) all.push(...own);
    if (all.length < 2) return;
    const names = all.map((d) => d.name ?? '?').join(', ');
    for (const database of own) {
        accept('error', `The database is declared ${all.length} times in this model (${names}): declare it once.`, {
            node: database,
            property: 'name',
            code: PidmIssueCodes.DuplicateDatabase,
            data: { code: PidmIssueCodes.DuplicateDatabase },
        });
    }
}
