#!/usr/bin/env bash
# The Atlas report in a real browser (issue 29 item 6): `tern simulate`
# writes the report of dart-doc's Atlas v3 (its visuals are COLLADA, its
# collisions the STL versions of the same meshes), headless Chromium opens
# it with #meshboxes, and the page writes, per body, the world bounding box
# of its drawn mesh vertices at the first frame, as three.js places them.
# atlas_mesh_boxes.py computes the same boxes independently of Tern: link
# poses by composing the URDF's joint origins at q = 0 from the scenario's
# base position, vertices from the STL files. Every link must be drawn and
# agree to 5 mm: a Z-up COLLADA mesh drawn rotated 90 deg about x, or a
# link at the wrong pose (a disassembled robot), is off by centimetres to
# decimetres. Needs dart-doc (fails without it) and python3.
#   report_atlas_browser_test.sh <tern executable> <this folder>
set -euo pipefail
tern="$1"
here="$2"
urdf=/usr/share/doc/dart/data/sdf/atlas/atlas_v3_no_head.urdf
[ -f "$urdf" ] || { echo "FAIL: $urdf is missing: install dart-doc (scripts/install-deps test)"; exit 1; }

. "$here/browser_harness.sh" report_atlas_browser_test
# A short run: the first frame is what is checked.
cat >"$tmp/atlas.yaml" <<YAML
name: atlas
duration: 0.01
models:
  - file: "$urdf"
    floating: true
    position: [0.1, -0.2, 1.2]
    self_collision: false
plant: {kind: time-stepping, dt: 1e-3}
log: {rate: 100}
YAML
start=$(date +%s.%N)
"$tern" simulate "$tmp/atlas.yaml" --output "$tmp/out" --quiet
report="$tmp/out/report.html"
[ -s "$report" ] || { echo "FAIL: no report written"; exit 1; }
echo "report.html: $(stat -c %s "$report") bytes, written in $(awk "BEGIN{print $(date +%s.%N) - $start}") s"

browser --dump-dom "file://$report#meshboxes" >"$tmp/dom.html" 2>"$tmp/console.txt"
page_result "$tmp/dom.html" >"$tmp/boxes.json"
[ -s "$tmp/boxes.json" ] || { echo "FAIL: the page wrote no mesh boxes"; exit 1; }
# The check can fail: the same page against the robot placed 1 cm higher.
if python3 "$here/atlas_mesh_boxes.py" "$urdf" "0.1,-0.2,1.21" "$tmp/boxes.json" 5e-3 >/dev/null; then
  echo "FAIL: the box check passes a robot placed 1 cm off"; exit 1
fi
if grep -q ':CONSOLE' "$tmp/console.txt"; then
  echo "FAIL: console messages from the page:"; grep ':CONSOLE' "$tmp/console.txt"; exit 1
fi
python3 "$here/atlas_mesh_boxes.py" "$urdf" "0.1,-0.2,1.2" "$tmp/boxes.json" 5e-3
