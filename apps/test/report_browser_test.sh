#!/usr/bin/env bash
# report.html in a real browser (issue 16): headless Chromium opens a report
# of a red box falling (report_scene.yaml) with the page's self-test
# (#selftest), which renders the first frame, reads the pixel under the box,
# moves the time slider to the end and reads again. The test checks that
# the pixel has the box's colour at both frames, that the slider moved the
# box (its drawn height and its pixel row), that the plots and the contact
# force arrows are drawn, and that
# the browser console has no errors. It also takes a PNG screenshot and
# checks the box's colour in it when python3 is there to decode it.
#
# Chromium and the browser command come from browser_harness.sh.
#   report_browser_test.sh <tern executable> <this folder>
set -euo pipefail
tern="$1"
here="$2"

. "$here/browser_harness.sh" report_browser_test
"$tern" simulate "$here/report_scene.yaml" --output "$tmp/out" --quiet
report="$tmp/out/report.html"
[ -s "$report" ] || { echo "FAIL: no report written"; exit 1; }
size=$(stat -c %s "$report")
echo "report.html: $size bytes"

browser --dump-dom "file://$report#selftest" >"$tmp/dom.html" 2>"$tmp/console.txt"
result=$(page_result "$tmp/dom.html")
echo "self-test: $result"
[ -n "$result" ] || { echo "FAIL: the page's self-test did not run"; exit 1; }

fail=0
check() {  # check <description> <condition as a shell test>
  if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi
}
num() { echo "$result" | sed -n "s/.*\"$1\":\([-0-9.e]*\).*/\1/p"; }
rgba() { echo "$result" | sed -n "s/.*\"$1\":{[^}]*\"rgba\":\[\([0-9]*\),\([0-9]*\),\([0-9]*\).*/\1 \2 \3/p"; }
y_of() { echo "$result" | sed -n "s/.*\"$1\":{\"x\":[0-9]*,\"y\":\([0-9]*\).*/\1/p"; }
red() { [ "$1" -gt 80 ] && [ "$1" -gt $((3 * $2)) ] && [ "$1" -gt $((3 * $3)) ]; }
check "the box is drawn red at the first frame ($(rgba first))" "red $(rgba first)"
check "the box is drawn red at the last frame ($(rgba last))" "red $(rgba last)"
check "the slider moved to the last frame" "[ $(num slider) -gt 0 ] && [ $(num slider) = $(num frame) ]"
check "the box is drawn lower after the slider moved (row $(y_of first) -> $(y_of last))" \
      "[ $(y_of last) -gt $(( $(y_of first) + 10 )) ]"
check "the plots are drawn ($(num charts) charts)" "[ $(num charts) -ge 2 ]"
check "the contact forces are drawn at the last frame ($(num contacts_drawn) arrows)" \
      "[ $(num contacts_drawn) -ge 4 ]"
check "no error reported in the page" "echo '$result' | grep -q '\"errors\":\[\]'"
check "no console message from the page" "! grep -q ':CONSOLE' '$tmp/console.txt'"

# A real screenshot, decoded with python3's zlib (no imaging library).
browser --screenshot="$tmp/shot.png" "file://$report#selftest" >/dev/null 2>&1
if command -v python3 >/dev/null 2>&1; then
  # Row of the box in the screenshot: the canvas starts below the header.
  verdict=$(python3 - "$tmp/shot.png" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
pos, idat, width, height = 8, b'', 0, 0
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b'IHDR':
        width, height, depth, ctype = struct.unpack('>IIBB', body[:10])
        bpp = {2: 3, 6: 4}[ctype]
    elif kind == b'IDAT':
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
stride, prev, red = width * bpp, bytearray(width * bpp), 0
for y in range(height):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, width):
        r, g, bl = line[x * bpp:x * bpp + 3]
        if r > 80 and r > 3 * g and r > 3 * bl:
            red += 1
    prev = line
print(red)
PY
)
  check "the screenshot shows the red box ($verdict red pixels)" "[ ${verdict:-0} -gt 200 ]"
else
  echo "note: python3 not found; the PNG screenshot was taken but not decoded"
fi
exit $fail
