// tern/lcm from Python (docs/signals.md): the LCM connection, translators,
// publisher, subscriber and lockstep systems, and the server that answers a
// lockstep peer, so that a controller can be a Python process. Compiled
// only when tern_lcm is built (TERN_WITH_LCM); BindLcm is then called by
// the module.
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "python/bind_common.h"
#include "tern/lcm/lcm_echo.h"
#include "tern/lcm/lcm_interface.h"
#include "tern/lcm/lcm_lockstep_system.h"
#include "tern/lcm/lcm_publisher_system.h"
#include "tern/lcm/lcm_subscriber_system.h"
#include "tern/lcm/lcm_system_server.h"
#include "tern/lcm/lcm_translators.h"

namespace tern::python {

void BindLcm(py::module_& m) {
  using LS = LeafSystem<double>;
  using VecX = VectorX<double>;
  // Python holds translators as shared_ptr<LcmTranslator>; the systems
  // take shared_ptr<const LcmTranslator>.
  using Tr = std::shared_ptr<LcmTranslator>;

  py::class_<LcmInterface>(m, "LcmInterface",
                           "One process's LCM connection (docs/signals.md).")
      .def(py::init<std::string>(), py::arg("url") = "",
           "A connection to `url` ('' is LCM's default).")
      .def_property_readonly("url", &LcmInterface::url,
                             "The LCM URL this connection uses.")
      .def(
          "publish",
          [](LcmInterface& lcm, const std::string& channel, py::bytes data) {
            const std::string s = data;
            lcm.Publish(channel,
                        reinterpret_cast<const std::uint8_t*>(s.data()),
                        static_cast<int>(s.size()));
          },
          py::arg("channel"), py::arg("data"),
          "Sends the bytes `data` on `channel`; raises RuntimeError naming the "
          "channel and URL if LCM fails to send.")
      .def("handle_subscriptions", &LcmInterface::HandleSubscriptions,
           py::arg("timeout"),
           "Waits up to `timeout` s, then dispatches what was received; "
           "returns the number of messages.",
           py::call_guard<py::gil_scoped_release>());
  m.def("loopback_url", &LoopbackUrl, py::arg("port"),
        "The URL 'udpm://239.255.76.67:<port>?ttl=0': UDP multicast confined "
        "to this machine.");
  m.def("loopback_url_for_this_process", &LoopbackUrlForThisProcess,
        "LoopbackUrl on a port derived from the process id.");
  m.def("unique_channel_name", &UniqueChannelName, py::arg("base"),
        "`base` + '_' + the process id: a channel name unique to this run.");
  m.def("wait_for_lcm_peer", &WaitForLcmPeer, py::arg("lcm"),
        py::arg("channel"), py::arg("timeout"),
        "Waits for an LcmSystemServer replying on `channel` to announce "
        "itself.",
        py::call_guard<py::gil_scoped_release>());
  m.def(
      "describe_lcm_message",
      [](py::bytes data) {
        const std::string s = data;
        return DescribeLcmMessage(
            reinterpret_cast<const std::uint8_t*>(s.data()),
            static_cast<int>(s.size()));
      },
      py::arg("data"), "One line describing a tern_lcmt message.");

  py::class_<LcmTranslator, Tr>(m, "LcmTranslator",
                                "Translator between a vector signal of `size` "
                                "entries and an LCM message's bytes.")
      .def_property_readonly("size", &LcmTranslator::size,
                             "The length of the vector signal it carries.")
      .def("description", &LcmTranslator::description,
           "What the translator carries, in words (for error messages).")
      .def(
          "encode",
          [](const LcmTranslator& t, std::int64_t utime, const VecX& value) {
            std::vector<std::uint8_t> bytes;
            t.Encode(utime, value, &bytes);
            return py::bytes(reinterpret_cast<const char*>(bytes.data()),
                             bytes.size());
          },
          py::arg("utime"), py::arg("value"),
          "Encodes `value` (size,) at time utime (microseconds) into the "
          "message's bytes.")
      .def(
          "decode",
          [](const LcmTranslator& t, py::bytes data,
             const std::string& channel) {
            const std::string s = data;
            std::int64_t utime = 0;
            VecX value;
            t.Decode(reinterpret_cast<const std::uint8_t*>(s.data()),
                     static_cast<int>(s.size()), channel, &utime, &value);
            return py::make_tuple(utime, value);
          },
          py::arg("data"), py::arg("channel") = "",
          "Decodes message bytes into (utime, value), value a (size,) array; "
          "raises RuntimeError naming the channel on a malformed message, "
          "another type or kind, or a wrong size.");
  py::class_<LcmVectorTranslator, LcmTranslator,
             std::shared_ptr<LcmVectorTranslator>>(
      m, "LcmVectorTranslator",
      "Translator of any vector port to tern_lcmt::vector_t tagged with its "
      "kind (e.g. 'joint_command', 'imu'); raises ValueError if size < 0 or "
      "kind is empty.")
      .def(py::init<std::string, int>(), py::arg("kind"), py::arg("size"));
  py::class_<LcmRobotStateTranslator, LcmTranslator,
             std::shared_ptr<LcmRobotStateTranslator>>(
      m, "LcmRobotStateTranslator",
      "Translator of a plant's state [q (num_positions); v (num_velocities)] "
      "to tern_lcmt::robot_state_t.")
      .def(py::init<int, int>(), py::arg("num_positions"),
           py::arg("num_velocities"));

  py::class_<LcmPublisherSystem, LS>(m, "LcmPublisherSystem",
                                     py::dynamic_attr(),
                                     "Publishes input 'u' every period.")
      .def(py::init([](std::string channel, Tr translator, LcmInterface* lcm,
                       double period) {
             return std::make_unique<LcmPublisherSystem>(
                 std::move(channel), std::move(translator), lcm, period);
           }),
           py::arg("channel"), py::arg("translator"), py::arg("lcm"),
           py::arg("period"), py::keep_alive<1, 4>());
  py::class_<LcmReceived>(m, "LcmReceived",
                          "A subscriber's newest message, as its state holds "
                          "it.")
      .def_readonly("utime", &LcmReceived::utime,
                    "The message's time in microseconds; -1 before the "
                    "first message.")
      .def_readonly("count", &LcmReceived::count,
                    "The number of messages taken so far.")
      .def_readonly("value", &LcmReceived::value,
                    "The message's vector (translator size,), or the "
                    "initial one.");
  py::class_<LcmSubscriberSystem, LS>(
      m, "LcmSubscriberSystem", py::dynamic_attr(),
      "The newest message on a channel as state, output 'y'.")
      .def(py::init([](std::string channel, Tr translator, LcmInterface* lcm,
                       double period, const VecX& initial) {
             return std::make_unique<LcmSubscriberSystem>(std::move(channel),
                                                          std::move(translator),
                                                          lcm, period, initial);
           }),
           py::arg("channel"), py::arg("translator"), py::arg("lcm"),
           py::arg("period"), py::arg("initial"), py::keep_alive<1, 4>())
      .def("get_received", &LcmSubscriberSystem::GetReceived,
           py::arg("context"), py::return_value_policy::copy,
           "The newest message taken in `context` (an LcmReceived copy).");
  py::class_<LcmLockstepOptions>(m, "LcmLockstepOptions",
                                 "Options of an LcmLockstepSystem.")
      .def(py::init<>())
      .def_readwrite("timeout", &LcmLockstepOptions::timeout,
                     "Seconds of wall-clock time to wait for each reply "
                     "(10); past it the step raises, naming the channel.");
  py::class_<LcmLockstepSystem, LS>(
      m, "LcmLockstepSystem", py::dynamic_attr(),
      "A control period's round trip to another process.")
      .def(py::init([](std::string request_channel, Tr request,
                       std::string reply_channel, Tr reply, LcmInterface* lcm,
                       double period, const VecX& initial,
                       LcmLockstepOptions options) {
             return std::make_unique<LcmLockstepSystem>(
                 std::move(request_channel), std::move(request),
                 std::move(reply_channel), std::move(reply), lcm, period,
                 initial, options);
           }),
           py::arg("request_channel"), py::arg("request"),
           py::arg("reply_channel"), py::arg("reply"), py::arg("lcm"),
           py::arg("period"), py::arg("initial"),
           py::arg("options") = LcmLockstepOptions(), py::keep_alive<1, 6>());
  py::class_<LcmSystemServer>(
      m, "LcmSystemServer",
      "Answers an LcmLockstepSystem by evaluating a stateless system.")
      .def(py::init([](const System<double>& system, LcmInterface* lcm,
                       std::string request_channel, Tr request,
                       std::string reply_channel, Tr reply) {
             return std::make_unique<LcmSystemServer>(
                 system, lcm, std::move(request_channel), std::move(request),
                 std::move(reply_channel), std::move(reply));
           }),
           py::arg("system"), py::arg("lcm"), py::arg("request_channel"),
           py::arg("request"), py::arg("reply_channel"), py::arg("reply"),
           py::keep_alive<1, 2>(), py::keep_alive<1, 3>())
      .def("serve", &LcmSystemServer::Serve, py::arg("idle_timeout"),
           py::arg("max_requests") = -1,
           "Serves requests until idle_timeout s pass without one or "
           "max_requests were served (-1: no cap); returns how many.");
}

}  // namespace tern::python
