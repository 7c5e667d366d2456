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

  py::class_<Adder<double>, LS>(
      m, "Adder", py::dynamic_attr(),
      "Adder: y = u0 + ... + u{n-1}, the sum of n inputs of the same size.")
      .def(py::init<int, int>(), py::arg("num_inputs"), py::arg("size"),
           "An adder of num_inputs inputs 'u0'..'u{n-1}' of `size` entries "
           "each and one output 'sum'.");
  py::class_<AffineSystem<double>, LS>(
      m, "AffineSystem", py::dynamic_attr(),
      "AffineSystem: xdot (or x[n+1]) = A x + B u + f0, y = C x + D u + y0, "
      "with x (n,), u (m,), y (p,).")
      .def(py::init<const MatX&, const MatX&, const VecX&, const MatX&,
                    const MatX&, const VecX&, double>(),
           py::arg("A"), py::arg("B"), py::arg("f0"), py::arg("C"),
           py::arg("D"), py::arg("y0"), py::arg("time_period") = 0.0,
           "An affine system from A (n, n), B (n, m), f0 (n,), C (p, n), D (p, "
           "m) and y0 (p,): continuous if time_period == 0, else discrete with "
           "that period, s.")
      .def("A", &AffineSystem<double>::A,
           "The state matrix A, (n, n) (a copy).")
      .def("B", &AffineSystem<double>::B,
           "The input matrix B, (n, m) (a copy).")
      .def("C", &AffineSystem<double>::C,
           "The output matrix C, (p, n) (a copy).")
      .def("D", &AffineSystem<double>::D,
           "The feedthrough matrix D, (p, m) (a copy).")
      .def("get_state", &AffineSystem<double>::get_state, py::arg("context"),
           "The state x (n,) in `context` (a copy).")
      .def("set_state", &AffineSystem<double>::set_state, py::arg("context"),
           py::arg("x"), "Sets the state x (n,) in `context`.");
  py::class_<LinearSystem<double>, AffineSystem<double>>(
      m, "LinearSystem", py::dynamic_attr(),
      "LinearSystem: an AffineSystem with f0 = 0 and y0 = 0.")
      .def(py::init<const MatX&, const MatX&, const MatX&, const MatX&,
                    double>(),
           py::arg("A"), py::arg("B"), py::arg("C"), py::arg("D"),
           py::arg("time_period") = 0.0,
           "A linear system xdot (or x[n+1]) = A x + B u, y = C x + D u from A "
           "(n, n), B (n, m), C (p, n) and D (p, m); discrete if time_period > "
           "0, s.");
  py::class_<ConstantVectorSource<double>, LS>(
      m, "ConstantVectorSource", py::dynamic_attr(),
      "ConstantVectorSource: y = a constant vector, held as a numeric "
      "parameter.")
      .def(py::init<const VecX&>(), py::arg("value"),
           "A source whose output y is `value` (n,).");
  py::class_<Demultiplexer<double>, LS>(m, "Demultiplexer", py::dynamic_attr(),
                                        "Splits u into consecutive outputs.")
      .def(py::init<const std::vector<int>&>(), py::arg("output_sizes"),
           "A demultiplexer whose outputs 'y0'..'y{n-1}' have these sizes, in "
           "order.")
      .def(py::init<int, int>(), py::arg("size"), py::arg("output_size") = 1,
           "A demultiplexer of an input of `size` entries into outputs of "
           "output_size entries each.");
  py::class_<DiscreteTimeDelay<double>, LS>(
      m, "DiscreteTimeDelay", py::dynamic_attr(),
      "Delays a sampled signal k periods.")
      .def(py::init<double, int, int>(), py::arg("period"),
           py::arg("delay_steps"), py::arg("size"),
           "A delay of delay_steps periods of `period` s on a signal of `size` "
           "entries.");
  py::class_<FirstOrderLowPassFilter<double>, LS>(
      m, "FirstOrderLowPassFilter", py::dynamic_attr(),
      "FirstOrderLowPassFilter: x' = (u - x) / tau elementwise, y = x (1 / "
      "(tau s + 1) per entry).")
      .def(py::init<double, int>(), py::arg("time_constant"),
           py::arg("size") = 1,
           "A filter of `size` entries with the same time constant tau, s, for "
           "every entry.");
  py::class_<Gain<double>, LS>(
      m, "Gain", py::dynamic_attr(),
      "Gain: y = k u elementwise, k a scalar or a vector.")
      .def(py::init<double, int>(), py::arg("k"), py::arg("size"),
           "A gain k (a float) on a signal of `size` entries.")
      .def(py::init<const VecX&>(), py::arg("k"),
           "Elementwise gains k (n,) on a signal of n entries.");
  py::class_<Integrator<double>, LS>(
      m, "Integrator", py::dynamic_attr(),
      "Integrator: xdot = u, y = x, elementwise.")
      .def(py::init<int>(), py::arg("size"),
           "An integrator of `size` entries starting at zero.")
      .def(py::init<const VecX&>(), py::arg("initial_value"),
           "An integrator starting at initial_value (n,).");
  py::class_<MatrixGain<double>, LS>(m, "MatrixGain", py::dynamic_attr(),
                                     "A static gain y = D u (D: (p, m)).")
      .def(py::init<const MatX&>(), py::arg("D"),
           "A static gain y = D u with D (p, m).");
  py::class_<Multiplexer<double>, LS>(
      m, "Multiplexer", py::dynamic_attr(),
      "Multiplexer: concatenates inputs 'u0'..'u{n-1}' into one output y of "
      "their total size.")
      .def(py::init<const std::vector<int>&>(), py::arg("input_sizes"),
           "A multiplexer of inputs of these sizes, in order.")
      .def(py::init<int>(), py::arg("num_scalar_inputs"),
           "A multiplexer of num_scalar_inputs inputs of one entry each.");
  py::class_<PassThrough<double>, LS>(
      m, "PassThrough", py::dynamic_attr(),
      "A pass-through block y = u (copies its input).")
      .def(py::init<int>(), py::arg("size"),
           "A pass-through of a signal of `size` entries.");
  py::class_<PidController<double>, LS>(
      m, "PidController", py::dynamic_attr(),
      "PidController: control (n,) = kp (q_d - q) + ki int(q_d - q) + kd (v_d "
      "- v) from inputs estimated_state [q; v] and desired_state [q_d; v_d], "
      "(2 n,) each.")
      .def(py::init<const VecX&, const VecX&, const VecX&>(), py::arg("kp"),
           py::arg("ki"), py::arg("kd"),
           "A PID law with gains kp, ki and kd, (n,) each.");
  py::class_<Saturation<double>, LS>(
      m, "Saturation", py::dynamic_attr(),
      "Saturation: y = clamp(u, lower, upper) elementwise.")
      .def(py::init<double, double, int>(), py::arg("lower"), py::arg("upper"),
           py::arg("size"),
           "A saturation of `size` entries with the same scalar limits.")
      .def(py::init<const VecX&, const VecX&>(), py::arg("lower"),
           py::arg("upper"),
           "A saturation with per-entry limits lower and upper, (n,) each.");
  py::class_<Sine<double>, LS>(
      m, "Sine", py::dynamic_attr(),
      "Sine: y = a sin(w t + phase) elementwise, with outputs y1 and y2 its "
      "first and second time derivatives.")
      .def(py::init<double, double, double, int>(), py::arg("amplitude"),
           py::arg("frequency"), py::arg("phase"), py::arg("size"),
           "A sine of `size` entries with the same amplitude, frequency "
           "(rad/s) and phase (rad) for every entry.");
  py::class_<ZeroOrderHold<double>, LS>(
      m, "ZeroOrderHold", py::dynamic_attr(),
      "ZeroOrderHold: samples u every period (at offset + k period, s) and "
      "holds it.")
      .def(py::init<double, int, double>(), py::arg("period"), py::arg("size"),
           py::arg("offset") = 0.0,
           "A hold of `size` entries sampling every `period` s from `offset`, "
           "holding zero until the first sample.");

  py::class_<RandomSource<double>, LS>(
      m, "RandomSource", py::dynamic_attr(),
      "Samples of a distribution, redrawn every sampling_interval (the "
      "only way randomness enters a simulation).")
      .def(py::init<RandomDistribution, int, double>(), py::arg("distribution"),
           py::arg("size"), py::arg("sampling_interval"),
           "A source of `size` samples of `distribution`, redrawn every "
           "sampling_interval s.")
      .def("set_fixed_seed", &RandomSource<double>::set_fixed_seed,
           py::arg("seed"), "Pins (or with None un-pins) the seed.")
      .def("get_fixed_seed", &RandomSource<double>::get_fixed_seed,
           "The seed pinned by set_fixed_seed, or None.")
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
          "The sample times (N,), s: a read-only view.")
      .def(
          "data",
          [](py::object self) {
            auto d = self.cast<const VectorLog<double>&>().data();
            return MatrixView(const_cast<double*>(d.data()), d.rows(), d.cols(),
                              self, true);
          },
          "The samples (size, N): column k was recorded at sample_times()[k]; "
          "a read-only view.")
      .def("reserve", &VectorLog<double>::Reserve, py::arg("num_samples"),
           "Reserves room for this many samples, so recording them does not "
           "allocate.")
      .def("clear", &VectorLog<double>::Clear,
           "Forgets every sample, keeping the storage.");
  py::class_<VectorLogSink<double>, LS>(
      m, "VectorLogSink", py::dynamic_attr(),
      "Records its input periodically (period > 0) or every step (0).")
      .def(py::init<int, double>(), py::arg("input_size"),
           py::arg("publish_period") = 0.0,
           "A sink of input_size entries recording every publish_period s "
           "(every step if 0).")
      .def("get_log", &VectorLogSink<double>::GetLog, py::arg("context"),
           py::return_value_policy::reference, py::keep_alive<0, 2>(),
           "The log in `context` (the sink's or a root's): valid while the "
           "context lives.")
      .def(
          "get_mutable_log",
          [](const VectorLogSink<double>& s, Context<double>* c)
              -> VectorLog<double>& { return s.GetMutableLog(c); },
          py::arg("context"), py::return_value_policy::reference,
          py::keep_alive<0, 2>(),
          "The log in `context`, writable: to clear or reserve (valid while "
          "the context lives).");
}

}  // namespace tern::python
