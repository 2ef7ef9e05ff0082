#!/usr/bin/env bash
# Fails when committed generated files drift from their sources: the Langium parser and AST
# (src/language/generated), the view-model validators compiled from the schemas the targets declare (src/generation/generated), the TextMate grammars (syntaxes), the examples' golden outputs (examples) and
# the command reference in docs/commands.md (the --help of every command), the extension's target settings in
# package.json and the target options of the config's schema (schemas/kvmod-config.schema.json), both from the
# targets' option declarations.
# It regenerates all of them in place, then asks git whether anything changed or appeared.
#
#   bash scripts/check-generated.sh      (CI runs it after `npm ci` and `npm run build`)
set -euo pipefail
cd "$(dirname "$0")/.."

paths=(src/language/generated src/generation/generated src/generation/typescript/typescript-runtime-files.ts syntaxes examples docs/commands.md package.json schemas/kvmod-config.schema.json)

if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "check-generated: not a git work tree; nothing to compare against" >&2
    exit 1
fi

echo "check-generated: regenerating the Langium output"
npm run --silent langium:generate
echo "check-generated: embedding the TypeScript client's run-time files"
node scripts/embed-client-runtime.mjs
echo "check-generated: compiling (the validators' build and the examples read the compiled registry and pipeline)"
npm run --silent build:ts
echo "check-generated: compiling the view-model schemas the targets declare into standalone validators"
validators_before=$(cat src/generation/generated/* 2>/dev/null | cksum)
node scripts/build-view-model-validators.mjs
if [[ "$(cat src/generation/generated/* | cksum)" != "$validators_before" ]]; then
    echo "check-generated: compiling again with the new validators"
    npm run --silent build:ts
fi
echo "check-generated: regenerating the examples"
node scripts/regenerate-examples.mjs
echo "check-generated: regenerating the command reference in docs/commands.md"
node scripts/update-command-reference.mjs
echo "check-generated: regenerating the extension's target settings in package.json"
node scripts/update-settings.mjs
echo "check-generated: regenerating the target options of the config's schema"
node scripts/update-config-schema.mjs

status=0
if ! git diff --quiet -- "${paths[@]}"; then
    echo "check-generated: generated files differ from the committed ones:" >&2
    git --no-pager diff --stat -- "${paths[@]}" >&2
    git --no-pager diff -- "${paths[@]}" | head -n 200 >&2
    status=1
fi
untracked=$(git ls-files --others --exclude-standard -- "${paths[@]}")
if [[ -n "$untracked" ]]; then
    echo "check-generated: generated files that are not committed:" >&2
    echo "$untracked" | sed 's/^/  /' >&2
    status=1
fi
if [[ $status -ne 0 ]]; then
    echo "check-generated: commit the regenerated files (run: bash scripts/check-generated.sh, then git add)" >&2
    exit 1
fi
echo "check-generated: everything generated is up to date"
