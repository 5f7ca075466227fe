#!/usr/bin/env bash
# Takes the README's picture of a run in Jaeger's UI again, into
# testdata/traces/jaeger.png: .ci/traces_test.go's TestTracesInJaeger asks
# the toy model on the real llama-server with Jaeger as the collector, and
# headless Chromium, driven through its DevTools protocol, opens the trace
# of that run in Jaeger's UI and its last chat span, and takes the picture.
#
# It needs what .ci/run builds (llama-server, Jaeger v1.76.0 in the cache),
# Chromium (Debian: apt-get install chromium), and, the first time, git and
# Node.js with npm: the Jaeger that .ci/run builds from the Go module proxy
# has no web UI, so this script builds the UI of the same release,
# jaeger-ui v1.76.0, into the cache (some 10 minutes and 1,400 npm
# packages; it runs on Node.js 20, though the UI asks for 24).
set -euo pipefail
cd "$(dirname "$0")/../.."
cache=${XDG_CACHE_HOME:-$HOME/.cache}/react-agent
ui_version=v1.76.0
ui=$cache/jaeger-ui-$ui_version
if [ ! -f "$ui/index.html" ]; then
  src=$(mktemp -d)
  git clone --quiet --depth 1 --branch "$ui_version" https://github.com/jaegertracing/jaeger-ui "$src"
  (
    cd "$src"
    npm ci --no-audit --no-fund --ignore-scripts --engine-strict=false
    (cd packages/plexus && npm run build)
    cd packages/jaeger-ui
    NODE_ENV=production REACT_APP_VSN_STATE='{}' npx vite build
  )
  mkdir -p "$ui"
  cp -R "$src/packages/jaeger-ui/build/." "$ui"
  rm -rf "$src"
fi
REACT_AGENT_JAEGER_UI=$ui REACT_AGENT_TRACES_SCREENSHOT=$PWD/testdata/traces/jaeger.png \
  go test -count 1 -run 'TestTracesInJaeger$' -v .ci/*_test.go | grep -E '^(---|ok|FAIL)|the trace .* is in'
