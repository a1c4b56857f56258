#!/usr/bin/env bash
# Installs the pinned LangChain text splitters from npm (never vendored) into
# corpus/.npm and runs langchain-split.mjs.
# Usage: langchain-split.sh [--pages split|pypdf|whole] [--page-base 0|1] [--suffix S] OUT_DIR FILE...
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -d "$here/.npm/node_modules/@langchain/textsplitters" ]; then
  npm install --silent --no-save --prefix "$here/.npm" @langchain/textsplitters@1.0.2 @langchain/core@1 >&2
fi
LANGCHAIN_NPM_DIR="$here/.npm" exec node "$here/langchain-split.mjs" "$@"
