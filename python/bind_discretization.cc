// Discretization of models: discrete_dynamics, discrete_jacobian (each
// method), linearize, collocation (Hermite-Simpson) residuals and KnotPoint,
// for the C++ example models and for a model given as a Python function
// (FunctionModel: slower, and without autodiff, which needs a C++ template).
// Rules and methods are chosen by name.
#include <fmt/format.h>
#include <pybind11/eigen.h>
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <utility>

#include "python/bind_common.h"
#include "tern/integrators/explicit_rules.h"
#include "tern/systems/analysis/collocation.h"
#include "tern/systems/analysis/discrete_dynamics.h"
#include "tern/systems/analysis/discrete_jacobian.h"
#include "tern/systems/analysis/example_models.h"
#include "tern/systems/analysis/knot_point.h"
#include "tern/systems/analysis/linearize.h"
#include "tern/systems/analysis/rigid_body_model.h"

namespace tern::python {
namespace {

// xdot = f(x, u, t) given by a Python callable, run-time sized.
struct FunctionModel {
  std::shared_ptr<py::object> f;
  Eigen::Index n{0}, m{0};
  std::string label;

  Eigen::Index num_states() const { return n; }
  Eigen::Index num_inputs() const { return m; }
  std::string name() const { return label; }
  Eigen::VectorXd Dynamics(const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                           const double& t) const {
    py::gil_scoped_acquire gil;
    Eigen::VectorXd xdot = (*f)(x, u, t).cast<Eigen::VectorXd>();
    if (xdot.size() != n) {
      throw std::invalid_argument(
          fmt::format("FunctionModel '{}': f returned {} entries but the "
                      "model has {} states",
                      label, xdot.size(), n));
    }
    return xdot;
  }
};

template <template <typename> class R>
struct RuleTag {};

// Calls f(model) with the C++ model behind `model`.
template <class F>
auto WithModel(py::handle model, F&& f) {
  if (py::isinstance<examples::Cartpole>(model)) {
    return f(model.cast<const examples::Cartpole&>());
  }
  if (py::isinstance<FunctionModel>(model)) {
    return f(model.cast<const FunctionModel&>());
  }
  if (py::isinstance<RigidBodyDynamicsModel>(model)) {
    return f(model.cast<const RigidBodyDynamicsModel&>());
  }
  throw std::invalid_argument(
      fmt::format("expected a model (tern.FunctionModel, tern.Cartpole or "
                  "tern.RigidBodyDynamicsModel), "
                  "got {}",
                  py::str(py::type::of(model)).cast<std::string>()));
}

// Calls f(RuleTag<Rule>{}) for an explicit rule by name.
template <class F>
auto WithExplicitRule(const std::string& rule, F&& f) {
  if (rule == "explicit_euler") return f(RuleTag<ExplicitEuler>{});
  if (rule == "rk2") return f(RuleTag<RK2>{});
  if (rule == "rk3") return f(RuleTag<RK3>{});
  if (rule == "rk4") return f(RuleTag<RK4>{});
  throw std::invalid_argument(fmt::format(
      "unknown explicit rule '{}' (use explicit_euler, rk2, rk3, rk4; the "
      "implicit ones are for collocation_residual)",
      rule));
}

template <class F>
auto WithImplicitRule(const std::string& rule, F&& f) {
  if (rule == "implicit_euler") return f(RuleTag<ImplicitEuler>{});
  if (rule == "implicit_midpoint") return f(RuleTag<ImplicitMidpoint>{});
  if (rule == "hermite_simpson") return f(RuleTag<HermiteSimpson>{});
  throw std::invalid_argument(fmt::format(
      "unknown implicit rule '{}' (use implicit_euler, implicit_midpoint, "
      "hermite_simpson)",
      rule));
}

JacobianMethod Method(const std::string& name) {
  if (name == "autodiff") return JacobianMethod::kAutoDiff;
  if (name == "central_difference") return JacobianMethod::kCentralDifference;
  if (name == "analytic") return JacobianMethod::kAnalytic;
  throw std::invalid_argument(fmt::format(
      "unknown Jacobian method '{}' (use autodiff, central_difference, "
      "analytic)",
      name));
}

using Knot = KnotPoint<Eigen::Dynamic, Eigen::Dynamic, double>;
using Vec = Eigen::VectorXd;

Vec DiscreteDynamicsByName(py::handle model, const Vec& x, const Vec& u,
                           double t, double dt, const std::string& rule) {
  return WithModel(model, [&](const auto& mdl) {
    return WithExplicitRule(rule, [&]<template <typename> class R>(RuleTag<R>) {
      return Vec(DiscreteDynamics<R>(mdl, x, u, t, dt));
    });
  });
}

Eigen::MatrixXd DiscreteJacobianByName(py::handle model, const Vec& x,
                                       const Vec& u, double t, double dt,
                                       const std::string& rule,
                                       const std::string& method) {
  const JacobianMethod jm = Method(method);
  return WithModel(model, [&](const auto& mdl) {
    using M = std::decay_t<decltype(mdl)>;
    return WithExplicitRule(rule, [&]<template <typename> class R>(RuleTag<R>) {
      JacobianOf<M> J;
      DiscreteJacobian<R>(mdl, x, u, t, dt, &J, jm);
      return Eigen::MatrixXd(J);
    });
  });
}

}  // namespace

void BindDiscretization(py::module_& m) {
  py::class_<FunctionModel>(
      m, "FunctionModel",
      "A model xdot = f(x, u, t) given by a Python function of NumPy "
      "arrays (central differences only for Jacobians).")
      .def(py::init([](py::object f, Eigen::Index n, Eigen::Index mm,
                       std::string name) {
             FunctionModel fm;
             fm.f = std::shared_ptr<py::object>(new py::object(std::move(f)),
                                                [](py::object* o) {
                                                  py::gil_scoped_acquire gil;
                                                  delete o;
                                                });
             fm.n = n;
             fm.m = mm;
             fm.label = std::move(name);
             return fm;
           }),
           py::arg("f"), py::arg("num_states"), py::arg("num_inputs"),
           py::arg("name") = "FunctionModel", "f(x, u, t) -> xdot.")
      .def("num_states", &FunctionModel::num_states,
           "Number of states n (int).")
      .def("num_inputs", &FunctionModel::num_inputs,
           "Number of inputs m (int).")
      .def("dynamics", &FunctionModel::Dynamics, py::arg("x"), py::arg("u"),
           py::arg("t") = 0.0, "xdot (n,) = f(x, u, t) for x (n,) and u (m,).");

  py::class_<examples::Cartpole>(
      m, "Cartpole",
      "The C++ cart-pole model (x = [p, theta, pdot, thetadot], theta = 0 "
      "hanging, u = [force]) with autodiff and analytic Jacobians.")
      .def(py::init<>(), "Default masses and length.")
      .def_readwrite("mc", &examples::Cartpole::mc, "Cart mass, kg.")
      .def_readwrite("mp", &examples::Cartpole::mp, "Pole mass, kg.")
      .def_readwrite("l", &examples::Cartpole::l, "Pole length, m.")
      .def_readwrite("g", &examples::Cartpole::g, "Gravity, m/s^2.")
      .def(
          "num_states", [](const examples::Cartpole&) { return 4; },
          "Number of states: 4.")
      .def(
          "num_inputs", [](const examples::Cartpole&) { return 1; },
          "Number of inputs: 1.")
      .def(
          "dynamics",
          [](const examples::Cartpole& c, const Vector<double, 4>& x,
             const Vector<double, 1>& u,
             double t) { return Vec(c.Dynamics<double>(x, u, t)); },
          py::arg("x"), py::arg("u"), py::arg("t") = 0.0,
          "xdot (4,) for x (4,) and u (1,).");

  py::class_<RigidBodyDynamicsModel>(
      m, "RigidBodyDynamicsModel",
      "A RigidBodyTree as a model for discrete_dynamics, discrete_jacobian, "
      "linearize and discrete_time_linearize: x = [q; v] (nq + nv,), u = tau "
      "(nv,), xdot = [N(q) v; forward_dynamics(q, v, tau)] with quaternions "
      "normalized. Jacobians: 'analytic' (ForwardDynamicsDerivatives), "
      "'autodiff' or 'central_difference'. It keeps the tree alive; one "
      "model per thread (it owns scratch).")
      .def(py::init<const RigidBodyTree<double>&>(), py::arg("tree"),
           py::keep_alive<1, 2>(), "Over `tree` (not copied).")
      .def("num_states", &RigidBodyDynamicsModel::num_states,
           "Number of states nq + nv (int).")
      .def("num_inputs", &RigidBodyDynamicsModel::num_inputs,
           "Number of inputs nv (int).")
      .def("name", &RigidBodyDynamicsModel::name, "The tree's name.")
      .def(
          "dynamics",
          [](const RigidBodyDynamicsModel& mdl, const Vec& x, const Vec& u,
             double t) {
            CheckVector("RigidBodyDynamicsModel.dynamics", "x", x,
                        mdl.num_states(), "nq + nv");
            CheckVector("RigidBodyDynamicsModel.dynamics", "u", u,
                        mdl.num_inputs(), "nv");
            Vec xdot(mdl.num_states());
            mdl.Dynamics<double>(x, u, t, &xdot);
            return xdot;
          },
          py::arg("x"), py::arg("u"), py::arg("t") = 0.0,
          "xdot (nq + nv,) for x (nq + nv,) and u (nv,).")
      .def(
          "jacobian",
          [](const RigidBodyDynamicsModel& mdl, const Vec& x, const Vec& u,
             double t) {
            CheckVector("RigidBodyDynamicsModel.jacobian", "x", x,
                        mdl.num_states(), "nq + nv");
            CheckVector("RigidBodyDynamicsModel.jacobian", "u", u,
                        mdl.num_inputs(), "nv");
            Eigen::MatrixXd J(mdl.num_states(),
                              mdl.num_states() + mdl.num_inputs());
            mdl.Jacobian(x, u, t, &J);
            return J;
          },
          py::arg("x"), py::arg("u"), py::arg("t") = 0.0,
          "[df/dx df/du], (nq + nv, nq + 2 nv), analytic.");

  py::class_<Knot>(m, "KnotPoint",
                   "A trajectory sample z = [x; u] with time t and step dt.")
      .def(py::init([](const Vec& x, const Vec& u, double t, double dt) {
             return Knot(x, u, t, dt);
           }),
           py::arg("x"), py::arg("u"), py::arg("t") = 0.0, py::arg("dt") = 0.0,
           "From x, u, t and dt.")
      .def("num_states", &Knot::num_states, "Number of states n (int).")
      .def("num_inputs", &Knot::num_inputs, "Number of inputs m (int).")
      .def(
          "z", [](const Knot& k) { return Vec(k.z()); }, "[x; u] (a copy).")
      .def(
          "x", [](const Knot& k) { return Vec(k.x()); },
          "The state x, (n,) (a copy).")
      .def(
          "u", [](const Knot& k) { return Vec(k.u()); },
          "The input u, (m,) (a copy).")
      .def_property(
          "t", [](const Knot& k) { return k.t(); }, &Knot::set_t,
          "The knot time t, s.")
      .def_property(
          "dt", [](const Knot& k) { return k.dt(); }, &Knot::set_dt,
          "Step to the next knot point, s.");

  m.def("discrete_dynamics", &DiscreteDynamicsByName, py::arg("model"),
        py::arg("x"), py::arg("u"), py::arg("t"), py::arg("dt"),
        py::arg("rule") = "rk4",
        "x' after one step of an explicit rule with u held.");
  m.def(
      "discrete_dynamics",
      [](py::handle model, const Knot& z, const std::string& rule) {
        return DiscreteDynamicsByName(model, z.x(), z.u(), z.t(), z.dt(), rule);
      },
      py::arg("model"), py::arg("knot_point"), py::arg("rule") = "rk4",
      "x' from a KnotPoint.");
  m.def("discrete_jacobian", &DiscreteJacobianByName, py::arg("model"),
        py::arg("x"), py::arg("u"), py::arg("t"), py::arg("dt"),
        py::arg("rule") = "rk4", py::arg("method") = "autodiff",
        "dx'/d[x; u] (n x (n + m)); method: autodiff, central_difference or "
        "analytic.");
  m.def(
      "linearize",
      [](py::handle model, const Vec& x0, const Vec& u0, double t,
         const std::string& method) {
        const JacobianMethod jm = Method(method);
        return WithModel(model, [&](const auto& mdl) {
          auto lin = Linearize(mdl, x0, u0, t, jm);
          return std::make_pair(Eigen::MatrixXd(lin.A), Eigen::MatrixXd(lin.B));
        });
      },
      py::arg("model"), py::arg("x0"), py::arg("u0"), py::arg("t") = 0.0,
      py::arg("method") = "autodiff",
      "(A, B) of xdot ~ A dx + B du at (x0, u0, t).");
  m.def(
      "discrete_time_linearize",
      [](py::handle model, const Vec& x0, const Vec& u0, double t, double dt,
         const std::string& rule, const std::string& method) {
        const JacobianMethod jm = Method(method);
        return WithModel(model, [&](const auto& mdl) {
          return WithExplicitRule(
              rule, [&]<template <typename> class R>(RuleTag<R>) {
                auto lin = DiscreteTimeLinearize<R>(mdl, x0, u0, t, dt, jm);
                return std::make_pair(Eigen::MatrixXd(lin.A),
                                      Eigen::MatrixXd(lin.B));
              });
        });
      },
      py::arg("model"), py::arg("x0"), py::arg("u0"), py::arg("t"),
      py::arg("dt"), py::arg("rule") = "rk4", py::arg("method") = "autodiff",
      "(Ad, Bd) of x' ~ Ad dx + Bd du.");
  m.def(
      "collocation_residual",
      [](py::handle model, const Vec& x1, const Vec& u1, const Vec& x2,
         const Vec& u2, double t, double dt, const std::string& rule) {
        return WithModel(model, [&](const auto& mdl) {
          return WithImplicitRule(
              rule, [&]<template <typename> class R>(RuleTag<R>) {
                return Vec(CollocationResidual<R>(mdl, x1, u1, x2, u2, t, dt));
              });
        });
      },
      py::arg("model"), py::arg("x1"), py::arg("u1"), py::arg("x2"),
      py::arg("u2"), py::arg("t"), py::arg("dt"),
      py::arg("rule") = "hermite_simpson",
      "Residual of an implicit rule between (x1, u1) at t and (x2, u2) at "
      "t + dt; zero on the discrete trajectory.");
}

}  // namespace tern::python
