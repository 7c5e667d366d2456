#pragma once
// Internal to multibody/plant: the per-Context workspace of ActuatorSystem
// and SensorSystem, kept in their abstract parameter 0 with a `mutable`
// member (the pattern and its reasons: vector_log_sink.h).
#include <fmt/format.h>

#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "tern/multibody/plant/sensor.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/multibody/tree/kinematics_cache.h"
#include "tern/systems/framework/system.h"

namespace tern {
namespace internal {

// The plants' constructor checks (`who` names the plant): an element
// (`kind` "actuator", "sensor", ...) must have been built for a tree of the
// plant's sizes nq, nv.
inline void CheckElementSizes(const std::string& who, const char* kind,
                              const std::string& name, int element_nq,
                              int element_nv, int nq, int nv) {
  if (element_nq != nq || element_nv != nv) {
    throw std::invalid_argument(fmt::format(
        "{}: {} '{}' was built for a tree with nq = {}, nv = {}, but the "
        "plant's tree has nq = {}, nv = {}",
        who, kind, name, element_nq, element_nv, nq, nv));
  }
}

// Every element non-null, sized for the tree and uniquely named.
template <class Element>
void CheckElements(const std::string& who, const char* kind,
                   const std::vector<std::shared_ptr<const Element>>& elements,
                   int nq, int nv) {
  std::set<std::string> names;
  for (size_t k = 0; k < elements.size(); ++k) {
    if (!elements[k]) {
      throw std::invalid_argument(
          fmt::format("{}: {} {} is null", who, kind, k));
    }
    const Element& e = *elements[k];
    CheckElementSizes(who, kind, e.name(), e.num_positions(),
                      e.num_velocities(), nq, nv);
    if (!names.insert(e.name()).second) {
      throw std::invalid_argument(
          fmt::format("{}: two {}s are named '{}'; names must be unique", who,
                      kind, e.name()));
    }
  }
}

// One workspace per element (null where an element needs none), copied by
// cloning so that a cloned Context gets workspaces of its own.
struct ElementScratchList {
  std::vector<std::unique_ptr<AbstractValue>> items;
  ElementScratchList() = default;
  ElementScratchList(const ElementScratchList& other) { *this = other; }
  ElementScratchList& operator=(const ElementScratchList& other) {
    if (this == &other) return *this;
    items.clear();
    for (const auto& item : other.items) {
      items.push_back(item ? item->Clone() : nullptr);
    }
    return *this;
  }
  AbstractValue* get(size_t k) const { return items[k].get(); }
};

// Per-Context workspace of a wrapper (see rigid_body_system.cc). Actuators
// and sensors read kinematics and Jacobians, never the mass matrix, so the
// cache is made without it (linear in the bodies).
template <typename T>
struct ForceElementScratch {
  explicit ForceElementScratch(const RigidBodyTree<T>& tree)
      : cache(tree, /*with_mass_matrix=*/false),
        q(tree.num_positions()),
        v(tree.num_velocities()),
        vdot(tree.num_velocities()),
        J(6, tree.num_velocities()) {}
  KinematicsCache<T> cache;
  VectorX<T> q, v, vdot;       // (nq), (nv), (nv)
  Matrix6X<T> J;               // (6 x nv)
  ElementScratchList element;  // the element's MakeScratch() (one item)
};

template <typename T>
struct ForceElementSlot {
  mutable ForceElementScratch<T> s;
};

// The wrapper's per-Context slot, holding `element`'s own scratch.
template <typename T, typename E>
ForceElementSlot<T> MakeElementSlot(const RigidBodyTree<T>& tree,
                                    const E& element) {
  ForceElementSlot<T> slot{ForceElementScratch<T>(tree)};
  slot.s.element.items.push_back(element.MakeScratch());
  return slot;
}

template <typename T>
ForceElementScratch<T>& WrapperScratch(const Context<T>& context) {
  return context.template get_abstract_parameter<ForceElementSlot<T>>(0).s;
}

// Copies the "state" input (port 0) into s.q, s.v.
template <typename T>
void ReadStateInput(const System<T>& system, const Context<T>& context,
                    ForceElementScratch<T>* s) {
  const VectorX<T>& x = system.get_input_port(0).Eval(context);
  const Eigen::Index nq = s->q.size();
  s->q = x.head(nq);
  s->v = x.segment(nq, s->v.size());
}

inline void CheckElementSizes(const char* kind, const std::string& name,
                              int enq, int env, int nq, int nv) {
  if (enq != nq || env != nv) {
    throw std::invalid_argument(fmt::format(
        "{}System: {} '{}' was built for a tree with nq = {}, nv = {}, but "
        "the given tree has nq = {}, nv = {}",
        kind, kind, name, enq, env, nq, nv));
  }
}

// A sensor's reading from q, v and (if the sensor needs it, else null) vdot:
// the forward kinematics it needs into `cache`, then CalcOutput into y.
// What RigidBodySystem's in-plant sensors and SensorSystem share.
template <typename T>
void ReadSensor(const RigidBodyTree<T>& tree, const Sensor<T>& sensor,
                const VectorX<T>& q, const VectorX<T>& v,
                const VectorX<T>* vdot, const T* noise,
                KinematicsCache<T>* cache, Matrix6X<T>* J,
                AbstractValue* scratch, T* y) {
  if (sensor.needs_kinematics()) {
    if (vdot) {
      ForwardKinematics(tree, cache, q, v, *vdot);
    } else {
      ForwardKinematics(tree, cache, q, v);
    }
  }
  SensorInputs<T> in;
  in.tree = &tree;
  in.cache = cache;
  in.q = &q;
  in.v = &v;
  in.vdot = vdot;
  in.noise = noise;
  in.J = J;
  in.scratch = scratch;
  sensor.CalcOutput(in, y);
}

}  // namespace internal

}  // namespace tern
