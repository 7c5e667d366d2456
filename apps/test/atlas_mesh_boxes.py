"""Checks per-link mesh boxes from the report page against the STL files.

  atlas_mesh_boxes.py <urdf> <x,y,z of the root link> <boxes.json> <tol, m>

The expected box of a link is the axis-aligned bounding box of its
collision STL vertices (scaled, placed by the collision origin) moved by the
link's world pose, which is the root position composed with the joint
origins at q = 0, all read from the URDF here (no Tern code). The page's box
of the same link comes from its drawn visual meshes. Exits 1 naming every
link whose boxes differ by more than tol in any face, or that is missing.
"""
import json
import math
import os
import struct
import sys
import xml.etree.ElementTree as ET


def rpy_matrix(r, p, y):
    cr, sr, cp, sp, cy, sy = (math.cos(r), math.sin(r), math.cos(p),
                              math.sin(p), math.cos(y), math.sin(y))
    return [[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr]]


def origin(element):
    """(R, p) of an <origin> child, identity when absent."""
    o = element.find('origin') if element is not None else None
    xyz = [float(x) for x in (o.get('xyz', '0 0 0') if o is not None else
                              '0 0 0').split()]
    rpy = [float(x) for x in (o.get('rpy', '0 0 0') if o is not None else
                              '0 0 0').split()]
    return rpy_matrix(*rpy), xyz


def compose(a, b):
    (ra, pa), (rb, pb) = a, b
    r = [[sum(ra[i][k] * rb[k][j] for k in range(3)) for j in range(3)]
         for i in range(3)]
    p = [sum(ra[i][k] * pb[k] for k in range(3)) + pa[i] for i in range(3)]
    return r, p


def stl_vertices(path):
    data = open(path, 'rb').read()
    if len(data) >= 84:
        n = struct.unpack('<I', data[80:84])[0]
        if len(data) == 84 + 50 * n:
            out = []
            for t in range(n):
                f = struct.unpack('<12f', data[84 + 50 * t:84 + 50 * t + 48])
                out += [f[3:6], f[6:9], f[9:12]]
            return out
    return [tuple(float(x) for x in line.split()[1:4])
            for line in data.decode('ascii', 'replace').splitlines()
            if line.strip().startswith('vertex')]


def box(pose, points):
    r, p = pose
    lo, hi = [math.inf] * 3, [-math.inf] * 3
    for v in points:
        w = [sum(r[i][k] * v[k] for k in range(3)) + p[i] for i in range(3)]
        lo = [min(a, b) for a, b in zip(lo, w)]
        hi = [max(a, b) for a, b in zip(hi, w)]
    return lo, hi


def main():
    urdf, root_xyz, boxes_json, tol = sys.argv[1:5]
    tol = float(tol)
    robot = ET.parse(urdf).getroot()
    folder = os.path.dirname(urdf)
    joints = {j.find('child').get('link'): j for j in robot.findall('joint')}
    root = [l.get('name') for l in robot.findall('link')
            if l.get('name') not in joints]
    assert len(root) == 1, root
    identity = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    poses = {root[0]: (identity, [float(x) for x in root_xyz.split(',')])}

    def pose_of(link):
        if link not in poses:
            j = joints[link]
            poses[link] = compose(pose_of(j.find('parent').get('link')),
                                  origin(j))
        return poses[link]

    expected, rotated = {}, {}
    for link in robot.findall('link'):
        name = link.get('name')
        lo, hi = [math.inf] * 3, [-math.inf] * 3
        rlo, rhi = [math.inf] * 3, [-math.inf] * 3
        for c in link.findall('collision'):
            mesh = c.find('geometry/mesh')
            if mesh is None:
                continue
            scale = [float(x) for x in mesh.get('scale', '1 1 1').split()]
            points = [[v[i] * scale[i] for i in range(3)] for v in
                      stl_vertices(os.path.join(folder, mesh.get('filename')))]
            pose = compose(pose_of(name), origin(c))
            b = box(pose, points)
            lo = [min(x, y) for x, y in zip(lo, b[0])]
            hi = [max(x, y) for x, y in zip(hi, b[1])]
            # The same mesh turned 90 deg about x (the Z-up COLLADA bug),
            # to show how far off that would be.
            turned = compose(pose, ([[1, 0, 0], [0, 0, -1], [0, 1, 0]],
                                    [0, 0, 0]))
            b = box(turned, points)
            rlo = [min(x, y) for x, y in zip(rlo, b[0])]
            rhi = [max(x, y) for x, y in zip(rhi, b[1])]
        if lo[0] <= hi[0]:
            expected[name], rotated[name] = (lo, hi), (rlo, rhi)

    page = json.load(open(boxes_json))
    drawn = {}
    for b in page['bodies']:
        # Bodies may carry the model's prefix ("atlas/l_foot").
        drawn[b['name'].split('/')[-1]] = (b['lo'], b['hi'])
    failures, worst, worst_link, turned_gaps = [], 0.0, '', []

    def gap(a, b):
        return max(abs(x - y) for x, y in zip(a[0] + a[1], b[0] + b[1]))

    for name, e in sorted(expected.items()):
        if name not in drawn:
            failures.append(f"link '{name}': no mesh drawn")
            continue
        g = gap(e, drawn[name])
        turned_gaps.append(gap(rotated[name], e))
        if g > worst:
            worst, worst_link = g, name
        if g > tol:
            failures.append(
                f"link '{name}': drawn box {drawn[name]} differs from the "
                f"STL box {e} by {g:.4g} m")
    if page.get('errors'):
        failures.append(f"errors in the page: {page['errors']}")
    turned_gaps.sort()
    print(f"{len(expected)} links with STL meshes, {len(drawn)} drawn; "
          f"largest difference {worst:.3g} m ({worst_link}); a 90 deg turn "
          f"about x would differ by {turned_gaps[0]:.3g} to "
          f"{turned_gaps[-1]:.3g} m (median "
          f"{turned_gaps[len(turned_gaps) // 2]:.3g})")
    for f in failures:
        print('FAIL: ' + f)
    sys.exit(1 if failures else 0)


main()
