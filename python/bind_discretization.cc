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
           py::arg("name") = "FunctionModel",
           "A model of n = num_states states and m = num_inputs inputs from "
           "f(x, u, t) -> xdot, with x and xdot (n,), u (m,) and t in s.")
      .def("num_states", &FunctionModel::num_states,
           "Number of states n: the size of x and xdot (int).")
      .def("num_inputs", &FunctionModel::num_inputs,
           "Number of inputs m: the size of u (int).")
      .def("dynamics", &FunctionModel::Dynamics, py::arg("x"), py::arg("u"),
           py::arg("t") = 0.0,
           "Evaluates xdot (n,) = f(x, u, t) for x (n,) and u (m,); raises "
           "ValueError if f returns the wrong size.");

  py::class_<examples::Cartpole>(
      m, "Cartpole",
      "The C++ cart-pole model (x = [p, theta, pdot, thetadot], theta = 0 "
      "hanging, u = [force]) with autodiff and analytic Jacobians.")
      .def(py::init<>(),
           "A cart-pole with the default masses, length and gravity.")
      .def_readwrite("mc", &examples::Cartpole::mc,
                     "Mass of the cart mc, kg (float).")
      .def_readwrite("mp", &examples::Cartpole::mp,
                     "Mass of the pole mp, kg (float).")
      .def_readwrite("l", &examples::Cartpole::l,
                     "Length of the pole l, m (float).")
      .def_readwrite("g", &examples::Cartpole::g,
                     "Gravitational acceleration g, m/s^2 (float).")
      .def(
          "num_states", [](const examples::Cartpole&) { return 4; },
          "Number of states n = 4: [p, theta, pdot, thetadot] (int).")
      .def(
          "num_inputs", [](const examples::Cartpole&) { return 1; },
          "Number of inputs m = 1: the force on the cart (int).")
      .def(
          "dynamics",
          [](const examples::Cartpole& c, const Vector<double, 4>& x,
             const Vector<double, 1>& u,
             double t) { return Vec(c.Dynamics<double>(x, u, t)); },
          py::arg("x"), py::arg("u"), py::arg("t") = 0.0,
          "Evaluates the dynamics xdot (4,) for x (4,) and u (1,) at time t, "
          "s.");

  py::class_<RigidBodyDynamicsModel>(
      m, "RigidBodyDynamicsModel",
      "A RigidBodyTree as a model for discrete_dynamics, discrete_jacobian, "
      "linearize and discrete_time_linearize: x = [q; v] (nq + nv,), u = tau "
      "(nv,), xdot = [N(q) v; forward_dynamics(q, v, tau)] with quaternions "
      "normalized. Jacobians: 'analytic' (ForwardDynamicsDerivatives), "
      "'autodiff' or 'central_difference'. It keeps the tree alive; one "
      "model per thread (it owns scratch).")
      .def(py::init<const RigidBodyTree<double>&>(), py::arg("tree"),
           py::keep_alive<1, 2>(),
           "A model over `tree` (not copied: the model keeps it alive).")
      .def("num_states", &RigidBodyDynamicsModel::num_states,
           "Number of states nq + nv (int).")
      .def("num_inputs", &RigidBodyDynamicsModel::num_inputs,
           "Number of inputs nv: u = tau (int).")
      .def("name", &RigidBodyDynamicsModel::name,
           "The name of the model's tree (str).")
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
          "Evaluates xdot (nq + nv,) = [N(q) v; vdot] for x = [q; v] (nq + "
          "nv,) and u = tau (nv,); raises ValueError naming x or u if it has "
          "the wrong size or is not finite.")
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
          "The analytic Jacobian [df/dx df/du] (nq + nv, nq + 2 nv) at x (nq + "
          "nv,) and u (nv,); raises ValueError naming x or u if it has the "
          "wrong size or is not finite.");

  py::class_<Knot>(m, "KnotPoint",
                   "A trajectory sample z = [x; u] with time t and step dt.")
      .def(py::init([](const Vec& x, const Vec& u, double t, double dt) {
             return Knot(x, u, t, dt);
           }),
           py::arg("x"), py::arg("u"), py::arg("t") = 0.0, py::arg("dt") = 0.0,
           "A knot point from x (n,), u (m,), time t and step dt to the next "
           "knot point, s.")
      .def("num_states", &Knot::num_states,
           "Number of states n: the size of x (int).")
      .def("num_inputs", &Knot::num_inputs,
           "Number of inputs m: the size of u (int).")
      .def(
          "z", [](const Knot& k) { return Vec(k.z()); },
          "The stacked sample z = [x; u], (n + m,) (a copy).")
      .def(
          "x", [](const Knot& k) { return Vec(k.x()); },
          "The state x at the knot point, (n,) (a copy).")
      .def(
          "u", [](const Knot& k) { return Vec(k.u()); },
          "The input u at the knot point, (m,) (a copy).")
      .def_property(
          "t", [](const Knot& k) { return k.t(); }, &Knot::set_t,
          "The time t of the knot point, s (float).")
      .def_property(
          "dt", [](const Knot& k) { return k.dt(); }, &Knot::set_dt,
          "Step to the next knot point, s.");

  m.def("discrete_dynamics", &DiscreteDynamicsByName, py::arg("model"),
        py::arg("x"), py::arg("u"), py::arg("t"), py::arg("dt"),
        py::arg("rule") = "rk4",
        "The state x' (n,) after one step dt (s) of an explicit rule "
        "(explicit_euler, rk2, rk3 or rk4) from x (n,) at t with u (m,) held. "
        "Raises ValueError naming a wrong-size x or u, an unknown rule or an "
        "unsupported model.");
  m.def(
      "discrete_dynamics",
      [](py::handle model, const Knot& z, const std::string& rule) {
        return DiscreteDynamicsByName(model, z.x(), z.u(), z.t(), z.dt(), rule);
      },
      py::arg("model"), py::arg("knot_point"), py::arg("rule") = "rk4",
      "The state x' (n,) after one step of an explicit rule from a KnotPoint's "
      "x (n,), u (m,), t and dt.");
  m.def("discrete_jacobian", &DiscreteJacobianByName, py::arg("model"),
        py::arg("x"), py::arg("u"), py::arg("t"), py::arg("dt"),
        py::arg("rule") = "rk4", py::arg("method") = "autodiff",
        "The Jacobian dx'/d[x; u] (n, n + m) of discrete_dynamics at x (n,), u "
        "(m,), t and dt, s; method: autodiff, central_difference or analytic. "
        "Raises ValueError naming a wrong-size x or u, an unknown rule or "
        "method, or a model without that Jacobian.");
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
      "Linearizes a model's continuous dynamics about (x0, u0, t): returns (A, "
      "B), A = df/dx (n, n) and B = df/du (n, m), with xdot ~ A dx + B du, for "
      "x0 (n,) and u0 (m,) (n = nq + nv, m = nv for a RigidBodyDynamicsModel). "
      "method: autodiff, central_difference or analytic. Raises ValueError "
      "naming a wrong-size x0 or u0, an unknown method or an unsupported "
      "model.");
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
      "Linearizes one step dt (s) of an explicit rule about (x0, u0, t): "
      "returns (Ad, Bd), Ad = dx'/dx (n, n) and Bd = dx'/du (n, m), with x' ~ "
      "Ad dx + Bd du, for x0 (n,) and u0 (m,). Raises ValueError naming a "
      "wrong-size x0 or u0, an unknown rule or method, or an unsupported "
      "model.");
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
      "The residual (n,) of an implicit rule (implicit_euler, "
      "implicit_midpoint or hermite_simpson) between x1 (n,), u1 (m,) at t and "
      "x2 (n,), u2 (m,) at t + dt, s; zero on the discrete trajectory.");
}

}  // namespace tern::python
