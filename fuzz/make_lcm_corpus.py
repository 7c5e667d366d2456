#!/usr/bin/env python3
"""Writes the LCM decoder corpus (fuzz/corpus/lcm/) with the Python types
lcm-gen makes from tern/lcm/msg (no LCM Python module needed):
  fuzz/make_lcm_corpus.py   (from the repository root)"""
import os
import struct
import subprocess
import sys
import tempfile

root = os.getcwd()
out = os.path.join(root, "fuzz", "corpus", "lcm")
tmp = tempfile.mkdtemp()
msgs = [os.path.join(root, "tern", "lcm", "msg", f)
        for f in ("robot_state_t.lcm", "vector_t.lcm")]
subprocess.check_call(["lcm-gen", "--python", "--ppath", tmp] + msgs)
sys.path.insert(0, tmp)
from tern_lcmt import robot_state_t, vector_t  # noqa: E402


def write(name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


s = robot_state_t()
s.utime = 1000
s.num_positions, s.q = 7, [0.1, 0.2, 0.3, 1.0, 0.0, 0.0, 0.0]
s.num_velocities, s.v = 6, [0.5, -0.5, 0.25, 0.0, 1e-300, -0.0]
write("robot_state_7_6.bin", s.encode())
s.num_positions, s.q = 2, [1.0, 2.0]
s.num_velocities, s.v = 2, [3.0, 4.0]
write("robot_state_wrong_size.bin", s.encode())
v = vector_t()
v.utime, v.kind, v.size, v.values = 2000, "joint_command", 3, [1.0, -2.0, 3.5]
write("vector_joint_command_3.bin", v.encode())
v.kind, v.size = "imu", 10
v.values = [float(i) for i in range(10)]
write("vector_imu_10.bin", v.encode())
v.kind, v.size, v.values = "other", 0, []
write("vector_other_kind_empty.bin", v.encode())
# A count far beyond the bytes that follow: must be refused before
# anything is allocated by it.
good = s.encode()
write("robot_state_huge_count.bin",
      good[:16] + struct.pack(">i", 2**31 - 1) + good[20:])
write("vector_negative_size.bin",
      v.encode()[:-4] + struct.pack(">i", -5))
write("truncated.bin", good[:11])
