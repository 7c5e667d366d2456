// MuJoCo 2.2.2 on the contact scene: an MJCF string built here (a plane and
// one free body per scene body, all geoms with sliding friction 0.5 and
// MuJoCo's default torsional and rolling values, condim 3), MuJoCo's default
// physics options (semi-implicit Euler, Newton solver, pyramidal cone, 100
// iterations, tolerance 1e-8, soft contacts with the default solref and
// solimp), one mj_step per step. Contacts: d->ncon after the step (MuJoCo
// adds contacts within a geom's margin, 0 here).
#include <mujoco/mujoco.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "bench/contact/peers.h"

namespace tern::bench::contact {
namespace {

std::string MakeMjcf(const Scene& scene) {
  const int n = static_cast<int>(scene.poses.size());
  // MuJoCo 2.2 sizes its buffers from nconmax and njmax (a full buffer
  // prints a warning and drops contacts; efc_AR alone is njmax^2 doubles and
  // the whole buffer must stay under 2 GB): room for 8 contacts per cube and
  // 2 per sphere (the piles here make about 6 and 1), 4 rows each.
  const int ncon = (scene.shape == BodyShape::kCube ? 8 : 2) * n + 100;
  std::string xml = "<mujoco model=\"" + scene.name + "\">\n";
  xml += "  <option timestep=\"" + std::to_string(kStep) + "\" gravity=\"0 0 " +
         std::to_string(-kGravity) + "\"/>\n";
  xml += "  <size nconmax=\"" + std::to_string(ncon) + "\" njmax=\"" +
         std::to_string(4 * ncon) + "\"/>\n";
  xml += "  <default><geom friction=\"" + std::to_string(kFriction) +
         " 0.005 0.0001\"/></default>\n";
  xml += "  <worldbody>\n";
  xml += "    <geom name=\"ground\" type=\"plane\" size=\"10 10 0.1\"/>\n";
  char line[512];
  for (int i = 0; i < n; ++i) {
    const BodyPose& b = scene.poses[i];
    char geom_attr[128];
    if (scene.shape == BodyShape::kSphere) {
      std::snprintf(geom_attr, sizeof(geom_attr),
                    "type=\"sphere\" size=\"%.17g\"", kRadius);
    } else {
      std::snprintf(geom_attr, sizeof(geom_attr),
                    "type=\"box\" size=\"%.17g %.17g %.17g\"", kHalfSide,
                    kHalfSide, kHalfSide);
    }
    std::snprintf(
        line, sizeof(line),
        "    <body pos=\"%.17g %.17g %.17g\" quat=\"%.17g 0 0 %.17g\">"
        "<freejoint/><geom %s mass=\"%.17g\"/></body>\n",
        b.p[0], b.p[1], b.p[2], std::cos(b.yaw / 2), std::sin(b.yaw / 2),
        geom_attr, kMass);
    xml += line;
  }
  xml += "  </worldbody>\n</mujoco>\n";
  return xml;
}

class MujocoWorld {
 public:
  explicit MujocoWorld(const Scene& scene) {
    const std::string xml = MakeMjcf(scene);
    auto vfs = std::make_unique<mjVFS>();
    mj_defaultVFS(vfs.get());
    const char* file = "contact_scene.xml";
    if (mj_makeEmptyFileVFS(vfs.get(), file, static_cast<int>(xml.size())) !=
        0) {
      std::fprintf(stderr, "bench/contact: MuJoCo VFS refused the scene\n");
      std::exit(1);
    }
    std::memcpy(vfs->filedata[mj_findFileVFS(vfs.get(), file)], xml.data(),
                xml.size());
    char err[1000] = "";
    m_ = mj_loadXML(file, vfs.get(), err, sizeof(err));
    mj_deleteVFS(vfs.get());
    if (m_ == nullptr) {
      std::fprintf(stderr, "bench/contact: MuJoCo cannot load the scene: %s\n",
                   err);
      std::exit(1);
    }
    d_ = mj_makeData(m_);
  }
  ~MujocoWorld() {
    if (d_->warning[mjWARN_CONTACTFULL].number > 0 ||
        d_->warning[mjWARN_CNSTRFULL].number > 0) {
      std::fprintf(stderr,
                   "bench/contact: MuJoCo dropped contacts (buffers full)\n");
    }
    mj_deleteData(d_);
    mj_deleteModel(m_);
  }

  void Step() { mj_step(m_, d_); }
  const mjModel& model() const { return *m_; }

  int NumContacts() const { return d_->ncon; }

  BodyState Body(int i) const {
    const mjtNum* v = d_->qvel + 6 * i;  // free joint: linear velocity first
    const mjtNum* w = v + 3;
    return {d_->qpos[7 * i + 2],
            std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]),
            std::sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2])};
  }

 private:
  mjModel* m_ = nullptr;
  mjData* d_ = nullptr;
};

}  // namespace

void RunMujoco(benchmark::State& state, const Scene* scene) {
  RunScene<MujocoWorld>(state, scene);
}

void TraceMujoco(const Scene* scene) {
  TraceScene<MujocoWorld>(*scene, "mujoco");
}

void PrintMujocoSettings() {
  const MujocoWorld world(MakeScene(BodyShape::kSphere, 1));
  const mjOption& o = world.model().opt;
  static const char* const kIntegrators[] = {"Euler", "RK4", "implicit"};
  static const char* const kSolvers[] = {"PGS", "CG", "Newton"};
  static const char* const kCones[] = {"pyramidal", "elliptic"};
  std::printf(
      "mujoco %s: MJCF built in code, integrator %s, solver %s, cone %s, %d "
      "iterations, tolerance %g, condim 3, friction %g\n",
      mj_versionString(), kIntegrators[o.integrator], kSolvers[o.solver],
      kCones[o.cone], o.iterations, o.tolerance, kFriction);
}

}  // namespace tern::bench::contact
