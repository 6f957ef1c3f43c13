#!/bin/sh
# Rebuild the vendored three.js bundle, sim/views/web/three.min.js, from the npm
# registry: the parts named in scripts/three_entry.js, minified, as one global THREE
# (a classic script, so that a page saved to disk works offline with no module
# loading). Needs node and npm; run from the repository root:
#     sh scripts/build_three.sh 0.187.0
set -eu
version=${1:-0.187.0}
root=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
npm init -y >/dev/null
npm install --no-audit --no-fund "three@$version" esbuild@0.28.2 >/dev/null
cp "$root/scripts/three_entry.js" entry.js
./node_modules/.bin/esbuild entry.js --bundle --minify \
    --format=iife --global-name=THREE --legal-comments=none \
    --outfile="$root/sim/views/web/three.min.js"
# the XHTML namespace, the one URL-like string in three.js (an identifier, never fetched),
# written with an escaped slash: the same string to JavaScript, and no "http://" in a page
sed -i 's#http://www.w3.org/1999/xhtml#http:\\/\\/www.w3.org/1999/xhtml#' "$root/sim/views/web/three.min.js"
cp node_modules/three/LICENSE "$root/sim/views/web/three-LICENSE.txt"
echo "three.js $version bundled into sim/views/web/three.min.js"
