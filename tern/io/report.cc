#include "tern/io/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tern/math/rotation.h"
#include "tern/multibody/geometry/geometry_queries.h"
#include "tern/multibody/parsing/mesh_reader.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/multibody/tree/kinematics_cache.h"

namespace tern::io {
namespace {

std::string ReadLibrary(const char* path, const char* package) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error(
        fmt::format("report: cannot read {} (install the Debian package {})",
                    path, package));
  }
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  // Inlined in <script>: "</script" would end the element early.
  for (std::size_t k = s.find("</script"); k != std::string::npos;
       k = s.find("</script", k)) {
    s.replace(k, 8, "<\\/script");
  }
  return s;
}

// A JSON string literal.
std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '<':
        out += "\\u003c";  // keeps "</script>" out of the page
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<int>(c));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

// A number for JSON: NaN and infinities (not JSON) become null; 6
// significant digits keep the file small.
std::string Num(double x) {
  if (!std::isfinite(x)) return "null";
  return fmt::format("{:.6g}", x);
}

std::string Vec(const auto& v) {
  std::string out = "[";
  for (Eigen::Index i = 0; i < static_cast<Eigen::Index>(v.size()); ++i) {
    if (i > 0) out += ",";
    out += Num(v[i]);
  }
  return out + "]";
}

std::string VisualJson(const BodyGeometry& g) {
  std::string shape;
  std::string extra;
  switch (g.shape) {
    case BodyGeometry::Shape::kBox:
      shape = "box";
      extra = ",\"size\":" + Vec(g.box_size);
      break;
    case BodyGeometry::Shape::kSphere:
      shape = "sphere";
      extra = ",\"radius\":" + Num(g.radius);
      break;
    case BodyGeometry::Shape::kCylinder:
    case BodyGeometry::Shape::kCapsule:
      shape =
          g.shape == BodyGeometry::Shape::kCylinder ? "cylinder" : "capsule";
      extra = ",\"radius\":" + Num(g.radius) + ",\"length\":" + Num(g.length);
      break;
    case BodyGeometry::Shape::kEllipsoid:
      // A sphere scaled along its axes.
      shape = "sphere";
      extra = ",\"radius\":1,\"scale\":" + Vec(g.radii);
      break;
    case BodyGeometry::Shape::kPlane:
      return "";  // the report draws the ground itself
    case BodyGeometry::Shape::kMesh: {
      shape = "mesh";
      std::shared_ptr<const MeshData> mesh = g.mesh;
      if (!mesh && !g.mesh_path.empty()) {
        try {
          mesh = ReadMeshFile(g.mesh_path, g.mesh_scale);
        } catch (const std::exception&) {
          mesh = nullptr;  // drawn as nothing; `tern check` reports meshes
        }
      }
      if (!mesh) return "";
      std::string v = "[", f = "[";
      for (std::size_t i = 0; i < mesh->vertices.size(); ++i) {
        if (i > 0) v += ",";
        v += Num(mesh->vertices[i].x()) + "," + Num(mesh->vertices[i].y()) +
             "," + Num(mesh->vertices[i].z());
      }
      for (std::size_t i = 0; i < mesh->triangles.size(); ++i) {
        if (i > 0) f += ",";
        f += fmt::format("{},{},{}", mesh->triangles[i][0],
                         mesh->triangles[i][1], mesh->triangles[i][2]);
      }
      extra = ",\"vertices\":" + v + "],\"faces\":" + f + "]";
      break;
    }
  }
  const Vector4<double> quat = RotationMatrixToQuaternion(g.X_BG.R);
  return fmt::format("{{\"shape\":\"{}\"{},\"color\":{},\"p\":{},\"q\":{}}}",
                     shape, extra, Vec(g.material.rgba), Vec(g.X_BG.p),
                     Vec(quat));
}

// Curves per chart: the palette's ten colours (report.cc's `palette`).
constexpr int kSignalsPerChart = 10;

constexpr const char* kPageHead = R"html(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Tern report: )html";

constexpr const char* kPageStyle = R"html(</title>
<style>
body{margin:0;font-family:sans-serif;background:#f4f4f4;color:#222}
header{padding:6px 12px;background:#234;color:#fff}
#view{width:100%;height:60vh;display:block;background:#dde6ee}
#controls{padding:6px 12px;display:flex;gap:10px;align-items:center}
#slider{flex:1}
#plots{display:grid;grid-template-columns:repeat(auto-fill,minmax(420px,1fr));gap:8px;padding:8px}
.plot{background:#fff;padding:4px;height:240px}
#selftest{display:none}
#notes{margin:0;padding:4px 12px 4px 30px;background:#fff3cd;color:#5a4500}
#notes:empty{display:none}
</style>
<script>
window.ternErrors = [];
window.addEventListener('error', e => window.ternErrors.push(String(e.message)));
(function(){ const f = console.error; console.error = function(...a){
  window.ternErrors.push(a.map(String).join(' ')); f.apply(console, a); }; })();
</script>
)html";

constexpr const char* kPageBody = R"html(
</head><body>
<header><b>Tern</b> &mdash; <span id="title"></span></header>
<ul id="notes"></ul>
<canvas id="view"></canvas>
<div id="controls">
<button id="play">Pause</button>
<label>speed <select id="speed"><option>0.1</option><option>0.25</option>
<option>0.5</option><option selected>1</option><option>2</option><option>4</option></select></label>
<input id="slider" type="range" min="0" value="0" step="1">
<label><input id="contacts" type="checkbox" checked> contacts</label>
<span id="time">t = 0 s</span>
</div>
<div id="plots"></div>
<pre id="selftest"></pre>
<script>
'use strict';
const D = TERN_DATA;
document.getElementById('title').textContent = D.name + ' (' + D.duration + ' s)';
for (const n of D.notes) {
  const li = document.createElement('li');
  li.textContent = n;
  document.getElementById('notes').appendChild(li);
}
const canvas = document.getElementById('view');
const renderer = new THREE.WebGLRenderer({canvas: canvas, antialias: true,
                                          preserveDrawingBuffer: true});
renderer.setPixelRatio(1);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0xdde6ee);
const camera = new THREE.PerspectiveCamera(45, 1, 0.01, 1000);
camera.up.set(0, 0, 1);
scene.add(new THREE.HemisphereLight(0xffffff, 0x666666, 0.9));
const sun = new THREE.DirectionalLight(0xffffff, 0.6);
sun.position.set(3, -2, 5);
scene.add(sun);
function material(c) {
  return new THREE.MeshLambertMaterial({color: new THREE.Color(c[0], c[1], c[2]),
      transparent: c[3] < 1, opacity: c[3]});
}
function geometryOf(v) {
  let g;
  if (v.shape === 'box') {
    g = new THREE.BoxBufferGeometry(v.size[0], v.size[1], v.size[2]);
  } else if (v.shape === 'sphere') {
    g = new THREE.SphereBufferGeometry(v.radius, 24, 16);
    if (v.scale) g.scale(v.scale[0], v.scale[1], v.scale[2]);  // ellipsoid
  } else if (v.shape === 'cylinder') {
    g = new THREE.CylinderBufferGeometry(v.radius, v.radius, v.length, 24);
    g.rotateX(Math.PI / 2);  // three.js cylinders lie along y, URDF's along z
  } else if (v.shape === 'capsule') {
    const c = new THREE.CylinderBufferGeometry(v.radius, v.radius, v.length, 24);
    c.rotateX(Math.PI / 2);
    const s = new THREE.SphereBufferGeometry(v.radius, 24, 16);
    return [c, s.clone().translate(0, 0, v.length / 2),
            s.translate(0, 0, -v.length / 2)];
  } else if (v.shape === 'mesh') {
    g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.Float32BufferAttribute(v.vertices, 3));
    g.setIndex(v.faces);
    g.computeVertexNormals();
  }
  return [g];
}
const bodies = D.bodies.map(b => {
  const node = new THREE.Group();
  for (const v of b.visuals) {
    for (const g of geometryOf(v)) {
      const mesh = new THREE.Mesh(g, material(v.color));
      mesh.position.set(v.p[0], v.p[1], v.p[2]);
      mesh.quaternion.set(v.q[1], v.q[2], v.q[3], v.q[0]);
      mesh.userData.shape = v.shape;
      node.add(mesh);
    }
  }
  scene.add(node);
  return node;
});
if (D.ground) {
  const size = D.extent * 4;
  const plane = new THREE.Mesh(new THREE.PlaneBufferGeometry(size, size),
                               material(D.ground.color));
  plane.position.set(D.center[0], D.center[1], D.ground.height - 1e-3);
  scene.add(plane);
  const grid = new THREE.GridHelper(size, 20, 0x999999, 0xbbbbbb);
  grid.rotateX(Math.PI / 2);
  grid.position.set(D.center[0], D.center[1], D.ground.height);
  scene.add(grid);
}
camera.position.set(D.center[0] + 1.6 * D.extent, D.center[1] - 2.2 * D.extent,
                    D.center[2] + 1.2 * D.extent);
const controls = new THREE.OrbitControls(camera, canvas);
controls.target.set(D.center[0], D.center[1], D.center[2]);
controls.update();

const F = D.frames;
// Contact points (orange) and normal-force arrows (blue), from a pool sized
// for the frame with the most contacts. The time-stepping plant's impulses
// are not logged: its contacts are drawn as points only.
let maxContacts = 0, maxForce = 0;
for (const c of F.contacts) {
  maxContacts = Math.max(maxContacts, c.length / 7);
  for (let i = 6; i < c.length; i += 7) maxForce = Math.max(maxForce, c[i]);
}
const pointGeometry = new THREE.SphereBufferGeometry(0.008 * Math.max(1, D.extent), 8, 6);
// Drawn over the bodies (a contact force points into the body it pushes).
const pointMaterial = new THREE.MeshBasicMaterial({color: 0xff9900,
                                                   depthTest: false});
const contactPool = [];
for (let i = 0; i < maxContacts; ++i) {
  const point = new THREE.Mesh(pointGeometry, pointMaterial);
  const arrow = new THREE.ArrowHelper(new THREE.Vector3(0, 0, 1),
      new THREE.Vector3(), 0.1, 0x2255ff);
  arrow.line.material.depthTest = false;
  arrow.cone.material.depthTest = false;
  point.renderOrder = arrow.renderOrder = 1;
  scene.add(point); scene.add(arrow);
  contactPool.push({point: point, arrow: arrow});
}
const showContacts = document.getElementById('contacts');
function setContacts() {
  const c = F.contacts[frame] || [];
  for (let i = 0; i < contactPool.length; ++i) {
    const on = showContacts.checked && 7 * i < c.length;
    contactPool[i].point.visible = on;
    contactPool[i].arrow.visible = on && !F.time_stepping && maxForce > 0;
    if (!on) continue;
    const o = 7 * i;
    contactPool[i].point.position.set(c[o], c[o + 1], c[o + 2]);
    const a = contactPool[i].arrow;
    a.position.set(c[o], c[o + 1], c[o + 2]);
    a.setDirection(new THREE.Vector3(c[o + 3], c[o + 4], c[o + 5]));
    // The scene's weight spread over four contacts draws 0.1 extent long.
    a.setLength(Math.min(D.extent, Math.max(1e-3,
        0.4 * D.extent * c[o + 6] * D.force_scale)));
  }
}
showContacts.onchange = setContacts;
const slider = document.getElementById('slider');
slider.max = F.t.length - 1;
let frame = 0;
function setFrame(k) {
  frame = Math.max(0, Math.min(F.t.length - 1, k));
  const p = F.poses[frame];
  for (let b = 0; b < bodies.length; ++b) {
    const o = 7 * b;
    bodies[b].position.set(p[o], p[o + 1], p[o + 2]);
    bodies[b].quaternion.set(p[o + 4], p[o + 5], p[o + 6], p[o + 3]);
  }
  slider.value = frame;
  setContacts();
  document.getElementById('time').textContent = 't = ' + F.t[frame].toFixed(3) + ' s';
  for (const c of charts) c.draw();
}
function resize() {
  const w = canvas.clientWidth, h = canvas.clientHeight;
  if (canvas.width !== w || canvas.height !== h) {
    renderer.setSize(w, h, false);
    camera.aspect = w / h;
    camera.updateProjectionMatrix();
  }
}

// Plots: one chart per logged signal (state split into q and v), with a
// vertical cursor at the replay time.
const cursor = {id: 'cursor', afterDatasetsDraw(chart) {
  const x = chart.scales.x.getPixelForValue(F.t[frame]);
  const ctx = chart.ctx, a = chart.chartArea;
  ctx.save(); ctx.strokeStyle = '#d00'; ctx.lineWidth = 1.5;
  ctx.beginPath(); ctx.moveTo(x, a.top); ctx.lineTo(x, a.bottom); ctx.stroke();
  ctx.restore();
}};
const palette = ['#1f77b4','#ff7f0e','#2ca02c','#d62728','#9467bd','#8c564b',
                 '#e377c2','#7f7f7f','#bcbd22','#17becf'];
const charts = [];
for (const group of D.plots) {
  const div = document.createElement('div');
  div.className = 'plot';
  const c = document.createElement('canvas');
  div.appendChild(c);
  document.getElementById('plots').appendChild(div);
  const datasets = group.columns.map((j, n) => ({
    label: D.signals.columns[j], borderColor: palette[n % palette.length],
    borderWidth: 1, pointRadius: 0,
    data: D.signals.t.map((t, i) => ({x: t, y: D.signals.values[i][j]}))}));
  charts.push(new Chart(c, {type: 'line', data: {datasets: datasets},
    options: {animation: false, parsing: false, maintainAspectRatio: false,
      plugins: {title: {display: true, text: group.title},
                legend: {labels: {boxWidth: 10, font: {size: 10}}}},
      interaction: {mode: 'nearest', intersect: false},
      scales: {x: {type: 'linear', title: {display: true, text: 't (s)'}}}},
    plugins: [cursor]}));
}

let playing = true, last = null, clock = 0;
document.getElementById('play').onclick = () => {
  playing = !playing;
  document.getElementById('play').textContent = playing ? 'Pause' : 'Play';
};
slider.oninput = () => { setFrame(Number(slider.value)); clock = F.t[frame]; };
function loop(now) {
  resize();
  if (playing && last !== null) {
    clock += (now - last) / 1000 * Number(document.getElementById('speed').value);
    if (clock > F.t[F.t.length - 1]) clock = F.t[0];
    let k = frame;
    if (F.t[k] > clock) k = 0;
    while (k + 1 < F.t.length && F.t[k + 1] <= clock) ++k;
    if (k !== frame) setFrame(k);
  }
  last = now;
  controls.update();
  renderer.render(scene, camera);
  requestAnimationFrame(loop);
}
setFrame(0);

// Self-test (#selftest, used by the browser test): the colour of the pixel
// under the first drawn body at the first and last frames.
function pixelAt(world) {
  resize();
  renderer.render(scene, camera);
  const v = world.clone().project(camera);
  const x = Math.round((v.x + 1) / 2 * canvas.width);
  const y = Math.round((v.y + 1) / 2 * canvas.height);
  const gl = renderer.getContext(), px = new Uint8Array(4);
  gl.readPixels(x, y, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, px);
  return {x: x, y: canvas.height - y, rgba: Array.from(px)};
}
// Mesh boxes (#meshboxes, used by the Atlas browser test): at the first
// frame, each body's world axis-aligned bounding box over the vertices of
// its drawn meshes, as three.js places them (body pose, visual origin).
function meshBoxes() {
  setFrame(0);
  scene.updateMatrixWorld(true);
  const out = [];
  for (let b = 0; b < bodies.length; ++b) {
    const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
    let meshes = 0;
    for (const m of bodies[b].children) {
      if (m.userData.shape !== 'mesh') continue;
      const pos = m.geometry.getAttribute('position');
      ++meshes;
      const p = new THREE.Vector3();
      for (let i = 0; i < pos.count; ++i) {
        p.fromBufferAttribute(pos, i).applyMatrix4(m.matrixWorld);
        for (let k = 0; k < 3; ++k) {
          lo[k] = Math.min(lo[k], p.getComponent(k));
          hi[k] = Math.max(hi[k], p.getComponent(k));
        }
      }
    }
    if (meshes > 0) out.push({name: D.bodies[b].name, meshes: meshes, lo: lo, hi: hi});
  }
  return out;
}
if (location.hash === '#meshboxes') {
  playing = false;
  document.getElementById('selftest').textContent = JSON.stringify({
    bodies: meshBoxes(), errors: window.ternErrors});
} else if (location.hash === '#selftest') {
  playing = false;
  const b = D.bodies.findIndex(x => x.visuals.length > 0);
  const centre = k => { setFrame(k); bodies[b].updateMatrixWorld(true);
    const box = new THREE.Box3().setFromObject(bodies[b]);
    return box.getCenter(new THREE.Vector3()); };
  const first = pixelAt(centre(0));
  const end = F.t.length - 1;
  slider.value = end; slider.dispatchEvent(new Event('input'));
  const moved = bodies[b].position.clone();
  const lastPx = pixelAt(centre(end));
  document.getElementById('selftest').textContent = JSON.stringify({
    body: D.bodies[b].name, color: D.bodies[b].visuals[0].color,
    first: first, last: lastPx, frame: frame, slider: Number(slider.value),
    position_first: F.poses[0].slice(7 * b, 7 * b + 3),
    position_shown: [moved.x, moved.y, moved.z],
    charts: charts.length,
    contacts_drawn: contactPool.filter(c => c.arrow.visible).length,
    errors: window.ternErrors});
} else {
  requestAnimationFrame(loop);
}
</script>
</body></html>
)html";

}  // namespace

void WriteReport(const std::string& path, const Scenario& scenario,
                 const World& world, const RunLog& log) {
  const std::string three = ReadLibrary(TERN_JS_THREE, "libjs-three");
  const std::string orbit = ReadLibrary(TERN_JS_ORBIT, "libjs-three");
  const std::string chart = ReadLibrary(TERN_JS_CHART, "libjs-chart.js");
  const RigidBodyTree<double>& tree = world.tree;

  // Frames: up to kMaxReportFrames evenly spaced samples of q.
  const int n = static_cast<int>(log.times.size());
  const int stride = std::max(1, (n + kMaxReportFrames - 1) / kMaxReportFrames);
  KinematicsCache<double> cache(tree, /*with_mass_matrix=*/false);
  Eigen::VectorXd q(tree.num_positions());
  std::string t_json = "[", poses = "[";
  Vector3<double> lo = Vector3<double>::Constant(1e300), hi = -lo;
  bool first = true;
  // Contact points per frame: [x y z nx ny nz f] each, n the direction of
  // the normal force on the moving body and f the normal spring force
  // k max(-phi, 0) of the compliant law (k of the two geometries in series;
  // the damping term is left out), N.
  GeometryWorkspace ws(world.geometry);
  std::string contacts = "[";
  for (int i = 0; i < n; i += stride) {
    for (int k = 0; k < log.num_q; ++k) q[k] = log.rows[i][log.q_offset + k];
    ForwardKinematics(tree, &cache, q);
    UpdateGeometryPoses(world.geometry, cache.X_WB, &ws);
    contacts += first ? "[" : ",[";
    bool first_contact = true;
    for (const Contact& c : ComputeContacts(world.geometry, &ws)) {
      const double ka =
          world.geometry.geometry(c.geometry_a).properties.stiffness;
      const double kb =
          world.geometry.geometry(c.geometry_b).properties.stiffness;
      const double f = ka * kb / (ka + kb) * std::max(-c.signed_distance, 0.0);
      const Vector3<double> p = (c.p_WA + c.p_WB) / 2;
      if (!first_contact) contacts += ',';
      contacts += Vec(p).substr(1);
      contacts.pop_back();
      // The force on B is along +n, on A along -n: draw the one on the
      // moving body (B unless B is the world).
      const Vector3<double> n_draw =
          c.body_b == 0 ? Vector3<double>(-c.normal) : c.normal;
      contacts += ',';
      contacts += Vec(n_draw).substr(1);
      contacts.pop_back();
      contacts += ',';
      contacts += Num(f);
      first_contact = false;
    }
    contacts += "]";
    if (!first) {
      t_json += ",";
      poses += ",";
    }
    first = false;
    t_json += Num(log.times[i]);
    poses += "[";
    for (int b = 0; b < tree.num_bodies(); ++b) {
      const RigidTransform<double>& X = cache.X_WB[b];
      if (b > 0) poses += ",";
      poses += Vec(X.p).substr(1, std::string::npos);
      poses.pop_back();
      poses += ',';
      poses += Vec(RotationMatrixToQuaternion(X.R)).substr(1);
      poses.pop_back();
      if (b > 0) {
        lo = lo.cwiseMin(X.p);
        hi = hi.cwiseMax(X.p);
      }
    }
    poses += "]";
  }
  t_json += "]";
  poses += "]";
  contacts += "]";
  if (tree.num_bodies() == 1 || n == 0) lo = hi = Vector3<double>::Zero();
  const Vector3<double> center = (lo + hi) / 2;
  const double extent = std::max(0.5, (hi - lo).norm());

  std::string bodies = "[";
  for (int b = 0; b < tree.num_bodies(); ++b) {
    if (b > 0) bodies += ",";
    std::string visuals = "[";
    bool any = false;
    for (const BodyGeometry& g : tree.body(b).visuals) {
      const std::string v = VisualJson(g);
      if (v.empty()) continue;
      if (any) visuals += ",";
      visuals += v;
      any = true;
    }
    bodies += fmt::format("{{\"name\":{},\"visuals\":{}]}}",
                          Quote(tree.body(b).name), visuals);
  }
  bodies += "]";

  // Signals, every log sample, column-indexed; plots grouped by signal.
  std::string columns = "[", values = "[", times = "[";
  for (std::size_t j = 0; j < log.columns.size(); ++j) {
    columns += (j ? "," : "") + Quote(log.columns[j]);
  }
  for (int i = 0; i < n; ++i) {
    times += (i ? "," : "") + Num(log.times[i]);
    values += (i ? "," : "") + Vec(log.rows[i]);
  }
  columns += "]";
  values += "]";
  times += "]";
  std::string plots = "[";
  auto add_plot = [&](const std::string& title, int begin, int end) {
    if (begin >= end) return;
    std::string cols = "[";
    // (Appends, not "," + std::string: GCC 12 warns -Wrestrict on that.)
    for (int j = begin; j < end; ++j) {
      if (j > begin) cols += ',';
      cols += std::to_string(j);
    }
    if (plots.size() > 1) plots += ',';
    plots +=
        fmt::format("{{\"title\":{},\"columns\":{}]}}", Quote(title), cols);
  };
  int j0 = 0;
  while (j0 < static_cast<int>(log.columns.size())) {
    const std::string& c = log.columns[j0];
    if (c.find('.') == std::string::npos) {
      // A one-column signal (an MJCF jointpos): a chart of its own.
      add_plot(c, j0, j0 + 1);
      ++j0;
      continue;
    }
    const std::string prefix = c.substr(0, c.find('.') + 1);
    int j1 = j0;
    while (j1 < static_cast<int>(log.columns.size()) &&
           log.columns[j1].rfind(prefix, 0) == 0) {
      ++j1;
    }
    const std::string title = prefix == "q." ? "positions q"
                              : prefix == "v."
                                  ? "velocities v"
                                  : prefix.substr(0, prefix.size() - 1);
    // A robot with many joints gets several charts per signal, each with
    // at most kSignalsPerChart curves: every curve has its own colour and
    // a legend entry that fits (one chart of 30 curves had no legend).
    const int count = j1 - j0;
    for (int k = j0; k < j1; k += kSignalsPerChart) {
      const int end = std::min(j1, k + kSignalsPerChart);
      add_plot(count <= kSignalsPerChart
                   ? title
                   : fmt::format("{} ({}-{} of {})", title, k - j0 + 1,
                                 end - j0, count),
               k, end);
    }
    j0 = j1;
  }
  plots += "]";

  const std::string ground =
      scenario.ground.enabled
          ? fmt::format("{{\"height\":{},\"color\":{}}}",
                        Num(scenario.ground.height), Vec(scenario.ground.color))
          : "null";
  // Clamped efforts, an interruption: listed above the replay.
  std::string notes = "[";
  for (const std::string& n : log.Notes()) {
    notes += (notes.size() > 1 ? "," : "") + Quote(n);
  }
  notes += "]";
  const std::string data = fmt::format(
      "{{\"name\":{},\"duration\":{},\"bodies\":{},\"ground\":{},"
      "\"center\":{},\"extent\":{},\"frames\":{{\"t\":{},\"poses\":{},"
      "\"contacts\":{},\"time_stepping\":{}}},\"force_scale\":{},"
      "\"signals\":{{\"columns\":{},\"t\":{},\"values\":{}}},\"plots\":{},"
      "\"notes\":{}}}",
      Quote(scenario.name), Num(scenario.duration), bodies, ground, Vec(center),
      Num(extent), t_json, poses, contacts,
      scenario.plant.kind == "time-stepping" ? "true" : "false",
      Num(1 / std::max(1e-9, tree.total_mass() * tree.gravity().norm())),
      columns, times, values, plots, notes);

  std::string body = kPageBody;
  const std::string marker = "TERN_DATA";
  body.replace(body.find(marker), marker.size(), data);

  std::ofstream out(path, std::ios::binary);
  if (!out) {
    throw std::runtime_error(fmt::format("report: cannot write {}", path));
  }
  std::string title = scenario.name;
  for (char& c : title) {
    if (c == '<' || c == '>' || c == '&') c = '_';
  }
  out << kPageHead << title << kPageStyle << "<script>\n"
      << three << "\n</script>\n<script>\n"
      << orbit << "\n</script>\n<script>\n"
      << chart << "\n</script>\n"
      << body;
  if (!out) {
    throw std::runtime_error(fmt::format("report: cannot write {}", path));
  }
}

}  // namespace tern::io
