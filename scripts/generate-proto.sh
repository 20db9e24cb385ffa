#!/usr/bin/env bash
# Regenerates src/cri/gen from proto/ with the buf and protoc-gen-es binaries that npm installed,
# then the codec the agent uses from the descriptors (scripts/generate-codec.ts).
# Works offline: no remote plugins, no registry modules.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"
rm -rf src/cri/gen
buf generate
bun scripts/generate-codec.ts
echo "generated src/cri/gen from proto/runtime/v1/api.proto"
