#!/usr/bin/env bash
# Regenerates src/cri/gen from proto/ with the buf and protoc-gen-es binaries that npm installed.
# Works offline: no remote plugins, no registry modules.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"
rm -rf src/cri/gen
buf generate
echo "generated src/cri/gen from proto/runtime/v1/api.proto"
