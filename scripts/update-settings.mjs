#!/usr/bin/env node
// Rewrites the extension's target settings in package.json (`contributes.configuration.properties`) from
// the targets' option declarations: `kvmod.generate.target` (an enum of the targets) and one
// `kvmod.<target>.<option>` per declared option, so the extension's settings say exactly what the targets
// declare. `scripts/check-generated.sh` runs it and fails on drift.
//
//   node scripts/update-settings.mjs
//
// Runs the compiled registry in `out/` (`npm run build:ts` first).
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
process.chdir(root);
const { DEFAULT_TARGET, generationTargets } = await import('../out/src/generation/generation-targets.js');

const targets = [...generationTargets.values()];
const generated = {
    'kvmod.generate.target': {
        type: 'string',
        enum: targets.map((target) => target.name),
        enumDescriptions: targets.map((target) => target.description),
        default: DEFAULT_TARGET,
        description: 'The generation target preselected in the quick pick.',
    },
};
for (const target of targets) {
    for (const { name, declaration } of target.options) {
        const property = {
            choice: { type: 'string', enum: declaration.choices },
            boolean: { type: 'boolean' },
            integer: { type: 'integer', minimum: declaration.min, maximum: declaration.max },
            string: { type: 'string' },
        }[declaration.type];
        const note = declaration.outputFolder ? ' (Preselects the quick pick item of this value.)' : '';
        generated[`kvmod.${target.name}.${name}`] = {
            ...property,
            default: declaration.default,
            description: `${target.name}: ${declaration.description}.${note}`,
        };
    }
}
const isGenerated = (key) =>
    key === 'kvmod.generate.target' ||
    key === 'kvmod.generate.dialect' ||
    targets.some((target) => key.startsWith(`kvmod.${target.name}.`));

const text = await readFile('package.json', 'utf8');
const manifest = JSON.parse(text);
const properties = manifest.contributes.configuration.properties;
const kept = Object.entries(properties).filter(([key]) => !isGenerated(key));
manifest.contributes.configuration.properties = Object.fromEntries([...kept, ...Object.entries(generated)]);
const updated = JSON.stringify(manifest, null, 2) + '\n';
if (updated !== text) {
    await writeFile('package.json', updated);
    console.log(`update-settings: package.json updated (${Object.keys(generated).length} target settings)`);
} else {
    console.log('update-settings: package.json already up to date');
}
