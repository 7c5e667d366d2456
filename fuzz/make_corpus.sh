#!/bin/sh
# Writes the checkpoint corpus (fuzz/corpus/checkpoint/): checkpoints of the
# two scenarios of checkpoint_fuzz.cc written by `tern simulate
# --checkpoint-every`, and, from them, the files of issue 27's findings.
# Usage: fuzz/make_corpus.sh build/asan/apps/tern   (from the repository root)
set -eu
tern=$(realpath "$1")
root=$(pwd)
out=$root/fuzz/corpus/checkpoint
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > continuous.yaml <<YAML
name: fuzz
duration: 0.1
ground: false
models: [{file: $root/models/pendulum.urdf}]
initial_state: {positions: {pivot: 0.5}}
log: {rate: 100}
YAML
cat > time_stepping.yaml <<YAML
name: fuzz
duration: 0.1
plant: {kind: time-stepping}
boxes: [{position: [0, 0, 0.06]}]
log: {rate: 100}
YAML
for s in continuous time_stepping; do
  "$tern" simulate $s.yaml --quiet --checkpoint-every 0.05 --output $s >/dev/null
  cp $s/checkpoint-0.05s.tck "$out/$s.tck"
done
c=$out/continuous.tck
# 1: a hang on resume (time inf, nan, 1e300).
for t in inf nan 1e300; do
  sed "s/^time .*/time $t/" "$c" > "$out/finding1_time_$t.tck"
done
# 2: counts that sized gigabytes before any data was read.
printf 'tern-checkpoint 2\nversion 0\nscenario 0000000000000000\nplant continuous\nchunks_done 1\ntime 0\nxc 0\nxd 200000000\n' \
  > "$out/finding2_xd_count.tck"
printf 'tern-checkpoint 2\nversion 0\nscenario 0000000000000000\nplant continuous\nchunks_done 1\ntime 0\nxc 0\nxd 0\nmemory 0\nclamped 0\nlog 50000000 1\n' \
  > "$out/finding2_log_count.tck"
sed 's/^xc \([0-9]*\)/xc 9000000000000000000/' "$c" > "$out/finding2_xc_count.tck"
# 4: chunks_done + 1 overflowed.
sed 's/^chunks_done .*/chunks_done 2147483647/' "$c" > "$out/finding4_chunks_done.tck"
# 8: an empty log.
awk '/^log /{print "log 0 " $3 " q " $5 " " $6; n=$3; skip=1; next}
     skip && n > 0 {print; n--; next} skip {next} {print}' "$c" \
  > "$out/finding8_empty_log.tck"
echo "wrote $(ls "$out" | wc -l) files to $out"
