// The standard blocks of tern/systems/primitives, VectorLog as NumPy.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "python/bind_common.h"
#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/primitives/adder.h"
#include "tern/systems/primitives/affine_system.h"
#include "tern/systems/primitives/constant_vector_source.h"
#include "tern/systems/primitives/demultiplexer.h"
#include "tern/systems/primitives/discrete_time_delay.h"
#include "tern/systems/primitives/first_order_low_pass_filter.h"
#include "tern/systems/primitives/gain.h"
#include "tern/systems/primitives/integrator.h"
#include "tern/systems/primitives/matrix_gain.h"
#include "tern/systems/primitives/multiplexer.h"
#include "tern/systems/primitives/pass_through.h"
#include "tern/systems/primitives/pid_controller.h"
#include "tern/systems/primitives/random_source.h"
#include "tern/systems/primitives/saturation.h"
#include "tern/systems/primitives/sine.h"
#include "tern/systems/primitives/vector_log.h"
#include "tern/systems/primitives/vector_log_sink.h"
#include "tern/systems/primitives/zero_order_hold.h"

namespace tern::python {

void BindPrimitives(py::module_& m) {
  using LS = LeafSystem<double>;
  using VecX = VectorX<double>;
  using MatX = MatrixX<double>;

  py::class_<Adder<double>, LS>(m, "Adder", py::dynamic_attr(),
                                "y = u0 + ... + u{n-1}.")
      .def(py::init<int, int>(), py::arg("num_inputs"), py::arg("size"),
           "n inputs of the given size.");
  py::class_<AffineSystem<double>, LS>(
      m, "AffineSystem", py::dynamic_attr(),
      "xdot (or x[n+1]) = A x + B u + f0, y = C x + D u + y0.")
      .def(py::init<const MatX&, const MatX&, const VecX&, const MatX&,
                    const MatX&, const VecX&, double>(),
           py::arg("A"), py::arg("B"), py::arg("f0"), py::arg("C"),
           py::arg("D"), py::arg("y0"), py::arg("time_period") = 0.0,
           "Continuous if time_period == 0, else discrete.")
      .def("A", &AffineSystem<double>::A,
           "The state matrix A, (n, n) (a copy).")
      .def("B", &AffineSystem<double>::B,
           "The input matrix B, (n, m) (a copy).")
      .def("C", &AffineSystem<double>::C,
           "The output matrix C, (p, n) (a copy).")
      .def("D", &AffineSystem<double>::D,
           "The feedthrough matrix D, (p, m) (a copy).")
      .def("get_state", &AffineSystem<double>::get_state, py::arg("context"),
           "x in the context (a copy).")
      .def("set_state", &AffineSystem<double>::set_state, py::arg("context"),
           py::arg("x"), "Sets x in the context.");
  py::class_<LinearSystem<double>, AffineSystem<double>>(
      m, "LinearSystem", py::dynamic_attr(),
      "AffineSystem with f0 = 0, y0 = 0.")
      .def(py::init<const MatX&, const MatX&, const MatX&, const MatX&,
                    double>(),
           py::arg("A"), py::arg("B"), py::arg("C"), py::arg("D"),
           py::arg("time_period") = 0.0, "xdot = A x + B u, y = C x + D u.");
  py::class_<ConstantVectorSource<double>, LS>(m, "ConstantVectorSource",
                                               py::dynamic_attr(),
                                               "y = a constant (parameter).")
      .def(py::init<const VecX&>(), py::arg("value"), "Vector value.");
  py::class_<Demultiplexer<double>, LS>(m, "Demultiplexer", py::dynamic_attr(),
                                        "Splits u into consecutive outputs.")
      .def(py::init<const std::vector<int>&>(), py::arg("output_sizes"),
           "Outputs of these sizes.")
      .def(py::init<int, int>(), py::arg("size"), py::arg("output_size") = 1,
           "Equal outputs.");
  py::class_<DiscreteTimeDelay<double>, LS>(
      m, "DiscreteTimeDelay", py::dynamic_attr(),
      "Delays a sampled signal k periods.")
      .def(py::init<double, int, int>(), py::arg("period"),
           py::arg("delay_steps"), py::arg("size"), "Period, k, size.");
  py::class_<FirstOrderLowPassFilter<double>, LS>(m, "FirstOrderLowPassFilter",
                                                  py::dynamic_attr(),
                                                  "x' = (u - x) / tau, y = x.")
      .def(py::init<double, int>(), py::arg("time_constant"),
           py::arg("size") = 1, "Same tau for every entry.");
  py::class_<Gain<double>, LS>(m, "Gain", py::dynamic_attr(),
                               "y = k u elementwise.")
      .def(py::init<double, int>(), py::arg("k"), py::arg("size"),
           "Scalar gain.")
      .def(py::init<const VecX&>(), py::arg("k"), "Elementwise gains.");
  py::class_<Integrator<double>, LS>(m, "Integrator", py::dynamic_attr(),
                                     "xdot = u, y = x.")
      .def(py::init<int>(), py::arg("size"), "Starting at zero.")
      .def(py::init<const VecX&>(), py::arg("initial_value"),
           "Starting at initial_value.");
  py::class_<MatrixGain<double>, LS>(m, "MatrixGain", py::dynamic_attr(),
                                     "A static gain y = D u (D: (p, m)).")
      .def(py::init<const MatX&>(), py::arg("D"), "The matrix.");
  py::class_<Multiplexer<double>, LS>(m, "Multiplexer", py::dynamic_attr(),
                                      "Concatenates inputs into y.")
      .def(py::init<const std::vector<int>&>(), py::arg("input_sizes"),
           "Inputs of these sizes.")
      .def(py::init<int>(), py::arg("num_scalar_inputs"), "Scalar inputs.");
  py::class_<PassThrough<double>, LS>(
      m, "PassThrough", py::dynamic_attr(),
      "A pass-through block y = u (copies its input).")
      .def(py::init<int>(), py::arg("size"), "Size.");
  py::class_<PidController<double>, LS>(
      m, "PidController", py::dynamic_attr(),
      "control = kp (q_d - q) + ki int(q_d - q) + kd (v_d - v).")
      .def(py::init<const VecX&, const VecX&, const VecX&>(), py::arg("kp"),
           py::arg("ki"), py::arg("kd"), "Gains of size n.");
  py::class_<Saturation<double>, LS>(m, "Saturation", py::dynamic_attr(),
                                     "y = clamp(u, lower, upper).")
      .def(py::init<double, double, int>(), py::arg("lower"), py::arg("upper"),
           py::arg("size"), "Scalar limits.")
      .def(py::init<const VecX&, const VecX&>(), py::arg("lower"),
           py::arg("upper"), "Per-entry limits.");
  py::class_<Sine<double>, LS>(m, "Sine", py::dynamic_attr(),
                               "y = a sin(w t + phase).")
      .def(py::init<double, double, double, int>(), py::arg("amplitude"),
           py::arg("frequency"), py::arg("phase"), py::arg("size"),
           "Same for every entry; frequency in rad/s.");
  py::class_<ZeroOrderHold<double>, LS>(m, "ZeroOrderHold", py::dynamic_attr(),
                                        "Samples u every period and holds it.")
      .def(py::init<double, int, double>(), py::arg("period"), py::arg("size"),
           py::arg("offset") = 0.0, "Starting at zero.");

  py::class_<RandomSource<double>, LS>(
      m, "RandomSource", py::dynamic_attr(),
      "Samples of a distribution, redrawn every sampling_interval (the "
      "only way randomness enters a simulation).")
      .def(py::init<RandomDistribution, int, double>(), py::arg("distribution"),
           py::arg("size"), py::arg("sampling_interval"),
           "Distribution, size, interval (s).")
      .def("set_fixed_seed", &RandomSource<double>::set_fixed_seed,
           py::arg("seed"), "Pins (or with None un-pins) the seed.")
      .def("get_fixed_seed", &RandomSource<double>::get_fixed_seed,
           "The pinned seed or None.")
      .def("default_seed", &RandomSource<double>::default_seed,
           "The seed of the default context.");
  m.def("add_random_inputs", &AddRandomInputs<double>,
        py::arg("sampling_interval"), py::arg("builder"),
        "Connects a new RandomSource to every unconnected random input port "
        "of the systems in `builder`; returns how many.");

  py::class_<VectorLog<double>>(
      m, "VectorLog",
      "Samples recorded by a VectorLogSink. sample_times() and data() are "
      "read-only views, valid until the next sample is recorded (copy() to "
      "keep).")
      .def("get_input_size", &VectorLog<double>::get_input_size,
           "Size of one logged sample (int).")
      .def("num_samples", &VectorLog<double>::num_samples,
           "Number of samples N recorded so far (int).")
      .def(
          "sample_times",
          [](py::object self) {
            auto t = self.cast<const VectorLog<double>&>().sample_times();
            return VectorView(const_cast<double*>(t.data()), t.size(), self,
                              true);
          },
          "(N) times, s.")
      .def(
          "data",
          [](py::object self) {
            auto d = self.cast<const VectorLog<double>&>().data();
            return MatrixView(const_cast<double*>(d.data()), d.rows(), d.cols(),
                              self, true);
          },
          "(size x N): column k was recorded at sample_times()[k].")
      .def("reserve", &VectorLog<double>::Reserve, py::arg("num_samples"),
           "Room for this many samples.")
      .def("clear", &VectorLog<double>::Clear, "Forgets every sample.");
  py::class_<VectorLogSink<double>, LS>(
      m, "VectorLogSink", py::dynamic_attr(),
      "Records its input periodically (period > 0) or every step (0).")
      .def(py::init<int, double>(), py::arg("input_size"),
           py::arg("publish_period") = 0.0, "Size and period.")
      .def("get_log", &VectorLogSink<double>::GetLog, py::arg("context"),
           py::return_value_policy::reference, py::keep_alive<0, 2>(),
           "The log in `context` (the sink's or a root's): valid while the "
           "context lives.")
      .def(
          "get_mutable_log",
          [](const VectorLogSink<double>& s, Context<double>* c)
              -> VectorLog<double>& { return s.GetMutableLog(c); },
          py::arg("context"), py::return_value_policy::reference,
          py::keep_alive<0, 2>(), "The log, to clear or reserve.");
}

}  // namespace tern::python
