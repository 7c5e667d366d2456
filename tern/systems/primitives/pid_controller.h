#pragma once
// PidController: a PID law on a second-order state, with Drake's port
// layout. Inputs "estimated_state" x = [q; v] and "desired_state"
// x_d = [q_d; v_d] (2 n each), output "control" (n):
//   control = kp ∘ (q_d - q) + ki ∘ ∫(q_d - q) dt + kd ∘ (v_d - v),
// where v plays the role of qdot. The integral is continuous state (n
// entries, zero by default), d/dt ∫ = q_d - q. The control output depends on
// both inputs directly (a plant between control and estimated_state must
// break the loop, e.g. through an Integrator). A discrete PD law can be
// built from this block fed through a ZeroOrderHold, or from MatrixGain.
#include "tern/systems/framework/leaf_system.h"

namespace tern {

template <typename T>
class PidController final : public LeafSystem<T> {
 public:
  // kp, ki, kd of the same size n >= 1.
  PidController(const VectorX<double>& kp, const VectorX<double>& ki,
                const VectorX<double>& kd);

  const VectorX<double>& get_Kp_vector() const { return kp_; }
  const VectorX<double>& get_Ki_vector() const { return ki_; }
  const VectorX<double>& get_Kd_vector() const { return kd_; }
  const InputPort<T>& get_input_port_estimated_state() const {
    return this->get_input_port(0);
  }
  const InputPort<T>& get_input_port_desired_state() const {
    return this->get_input_port(1);
  }
  const OutputPort<T>& get_output_port_control() const {
    return this->get_output_port(0);
  }
  // Sets the integral of the position error in `context` (own or root).
  void set_integral_value(Context<T>* context,
                          const Eigen::Ref<const VectorX<T>>& value) const;

  void DoCalcTimeDerivatives(const Context<T>& context,
                             Eigen::Ref<VectorX<T>> derivatives) const override;

 private:
  void CalcControl(const Context<T>& context, VectorX<T>* control) const;
  VectorX<double> kp_, ki_, kd_;  // (n)
  int n_;
};

}  // namespace tern
