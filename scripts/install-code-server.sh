#!/usr/bin/env bash
# Installs what the end-to-end test (`npm run test:e2e`) needs, apart from the package's own dependencies:
# code-server (a real VS Code in the browser) into .kvmod-tmp/code-server, and Debian's chromium for
# Playwright to drive. code-server is huge (~600 MB installed), so it is never a dependency of kvmod.
# Works offline but for the npm registry and Debian: the three install steps that fetch from elsewhere
# or need tools are fed locally (see below). Idempotent: a complete install is left as it is.
set -euo pipefail
cd "$(dirname "$0")/.."

# The exact version: 4.100.x is the last line that runs on Node 20 (later ones want Node 22).
CODE_SERVER_VERSION=4.100.3
prefix=.kvmod-tmp/code-server
entry="$prefix/node_modules/code-server/out/node/entry.js"
marker="$prefix/installed-$CODE_SERVER_VERSION"

# chromium: the browser Playwright drives; ripgrep: seeds @vscode/ripgrep (below); libkrb5-dev: the
# headers the `kerberos` native module builds against; build-essential/python3: node-gyp's toolchain.
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v rg >/dev/null 2>&1 || need+=(ripgrep)
[[ -f /usr/include/krb5.h || -f /usr/include/krb5/krb5.h ]] || need+=(libkrb5-dev)
command -v g++ >/dev/null 2>&1 || need+=(g++ make)
command -v python3 >/dev/null 2>&1 || need+=(python3)
if ((${#need[@]} > 0)); then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    apt-get install -y --no-install-recommends "${need[@]}"
fi

if [[ -f "$marker" && -f "$entry" ]]; then
    echo "code-server $CODE_SERVER_VERSION is installed in $prefix"
    exit 0
fi

# @vscode/ripgrep's install downloads a prebuilt `rg` from GitHub unless its download cache (in the
# temporary folder, keyed by the package's version and the release tag it wants) holds the archive:
# put Debian's rg there under that name. The version and tag are read from the package code-server
# locks, so a code-server update needs no edit here.
seed_ripgrep_cache() {
    local vscode=$prefix/node_modules/code-server/lib/vscode
    local version tag tmp
    version=$(node -e 'const l=require(process.argv[1]);console.log(l.packages["node_modules/@vscode/ripgrep"].version)' \
        "$PWD/$vscode/npm-shrinkwrap.json")
    tmp=$(mktemp -d)
    (cd "$tmp" && npm pack --silent "@vscode/ripgrep@$version" >/dev/null && tar xzf ./*.tgz)
    tag=$(sed -n "s/^const VERSION = '\(.*\)';/\1/p" "$tmp/package/lib/postinstall.js")
    local cache
    cache=$(node -p 'require("os").tmpdir()')/vscode-ripgrep-cache-$version
    mkdir -p "$cache" "$tmp/rg"
    cp "$(command -v rg)" "$tmp/rg/rg"
    tar czf "$cache/ripgrep-$tag-x86_64-unknown-linux-musl.tar.gz" -C "$tmp/rg" rg
    rm -rf "$tmp"
    echo "seeded $cache with Debian's rg as release $tag"
}

mkdir -p "$prefix"
# First without install scripts (to read the locked ripgrep version), then the real install.
npm install --prefix "$prefix" --no-audit --no-fund --ignore-scripts --save-exact "code-server@$CODE_SERVER_VERSION"
seed_ripgrep_cache
# node-pty's install runs `npx`, which asks before installing unless told yes (there is no terminal).
# As root, code-server's own install script insists on npm's unsafe-perm.
npm_config_yes=true npm_config_unsafe_perm=true \
    npm rebuild --prefix "$prefix" --foreground-scripts
test -f "$entry"
touch "$marker"
echo "code-server $CODE_SERVER_VERSION installed in $prefix"
