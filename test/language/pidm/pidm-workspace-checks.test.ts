/**
 * The workspace-wide checks (unique names, reached entities) read every PIDM file once per workspace
 * state; these tests pin that a file added or removed after a validation is seen by the next one.
 */
import { describe, expect, test } from '@jest/globals';
import { URI, type LangiumDocument } from 'langium';
import type { PidmModel } from '../../../src/language/generated/ast.js';
import { PidmIssueCodes } from '../../../src/language/pidm/pidm-validator.js';
import { codeOf, loadPidm, services } from './pidm-test-helpers.js';

let counter = 0;

/** Adds a file to the current workspace and builds it (the other documents are not rebuilt). */
async function addFile(text: string): Promise<LangiumDocument<PidmModel>> {
    const document = services.shared.workspace.LangiumDocumentFactory.fromString<PidmModel>(
        text,
        URI.file(`/test/added-${++counter}.pidm`),
    );
    services.shared.workspace.LangiumDocuments.addDocument(document);
    await services.shared.workspace.DocumentBuilder.build([document], { validation: true });
    return document;
}

/** The issue codes a fresh validation of the document reports, in document order. */
async function revalidatedCodes(document: LangiumDocument): Promise<string[]> {
    const diagnostics = await services.Pidm.validation.DocumentValidator.validateDocument(document);
    return diagnostics.map(codeOf).filter((code) => code.startsWith('pidm.'));
}

describe('PIDM workspace-wide checks', () => {
    test('an entity becomes reached when a query file that uses it is added, and unreached again when it is removed', async () => {
        const [entities] = await loadPidm('entity Crew { id badge  ref Base[1] base }\nentity Base { id code }');
        expect(await revalidatedCodes(entities)).toEqual([
            PidmIssueCodes.UnreachableEntity,
            PidmIssueCodes.UnreachableEntity,
        ]);

        const queries = await addFile('query K: select badge, base.code from Crew include Crew.base');
        expect(await revalidatedCodes(entities)).toEqual([]);

        await services.shared.workspace.DocumentBuilder.update([], [queries.uri]);
        expect(await revalidatedCodes(entities)).toEqual([
            PidmIssueCodes.UnreachableEntity,
            PidmIssueCodes.UnreachableEntity,
        ]);
    });

    test('a name declared again in a file added later to the same model is a duplicate in the first file too', async () => {
        const [first] = await loadPidm('entity Crew { id badge }\nquery K: select badge from Crew');
        expect(await revalidatedCodes(first)).toEqual([]);

        // A copy needs nothing of the first file: another model (model-sets.ts), no duplicates.
        const copy = await addFile('entity Crew { id other }\nquery K: select other from Crew');
        expect(await revalidatedCodes(first)).toEqual([]);
        expect(await revalidatedCodes(copy)).toEqual([]);

        // A file that uses Crew joins the model of the files that declare it: both Crews and all Ks meet.
        const linked = await addFile('entity Shift { id day  ref Crew[1] crew }\nquery K: select day from Shift');
        expect(await revalidatedCodes(first)).toEqual([PidmIssueCodes.DuplicateEntity, PidmIssueCodes.DuplicateQuery]);
        expect(await revalidatedCodes(linked)).toEqual([PidmIssueCodes.DuplicateQuery]);
    });

    test('an entity reached through a reference of a query in another file is reached', async () => {
        const [entities, queries] = await loadPidm(
            'entity Crew { id badge  ref Base[*] bases }\nentity Base { id code }',
            'query K: select badge, B.code from Crew include Crew.bases as B',
        );
        expect((entities.diagnostics ?? []).map(codeOf)).not.toContain(PidmIssueCodes.UnreachableEntity);
        expect((queries.diagnostics ?? []).map(codeOf)).toEqual([]);
    });
});
