#pragma once
// Non-owning views of (parts of) the state stored in a Context, handed to
// event handlers: DiscreteValues for discrete-update handlers, State for
// unrestricted-update handlers. They never allocate.
#include <fmt/format.h>

#include <memory>
#include <stdexcept>
#include <vector>

#include "tern/common/eigen_types.h"
#include "tern/common/value.h"

namespace tern {

// The discrete state groups of one system (a contiguous range of groups).
template <typename T>
class DiscreteValues {
 public:
  DiscreteValues() = default;
  DiscreteValues(VectorX<T>* groups, int num_groups)
      : groups_(groups), num_groups_(num_groups) {}

  int num_groups() const { return num_groups_; }
  // The groups [first, first + count) as a view.
  DiscreteValues<T> Sub(int first, int count) const {
    return DiscreteValues<T>(groups_ + first, count);
  }
  const VectorX<T>& get_vector(int group = 0) const {
    return groups_[Check(group)];
  }
  // The size of a group is fixed; handlers write its entries.
  VectorX<T>& get_mutable_vector(int group = 0) {
    return groups_[Check(group)];
  }
  void set_value(int group, const Eigen::Ref<const VectorX<T>>& value) {
    VectorX<T>& g = groups_[Check(group)];
    if (value.size() != g.size()) {
      throw std::invalid_argument(
          fmt::format("DiscreteValues::set_value: group {} has size {}, got a "
                      "value of size {}",
                      group, g.size(), value.size()));
    }
    g = value;
  }

 private:
  int Check(int group) const {
    if (group < 0 || group >= num_groups_) {
      throw std::out_of_range(fmt::format(
          "DiscreteValues: group {} requested but there are {} groups", group,
          num_groups_));
    }
    return group;
  }
  VectorX<T>* groups_{nullptr};
  int num_groups_{0};
};

// The whole state of one system: continuous (a contiguous segment),
// discrete groups and abstract values.
template <typename T>
class State {
 public:
  State() = default;
  State(VectorX<T>* xc, Eigen::Index xc_start, Eigen::Index xc_size,
        DiscreteValues<T> xd, std::unique_ptr<AbstractValue>* xa, int num_xa)
      : xc_(xc),
        xc_start_(xc_start),
        xc_size_(xc_size),
        xd_(xd),
        xa_(xa),
        num_xa_(num_xa) {}

  // The part of this state belonging to one subsystem, given its offsets.
  State<T> Sub(Eigen::Index xc_offset, Eigen::Index xc_size, int group_offset,
               int num_groups, int abstract_offset, int num_abstract) const {
    return State<T>(xc_, xc_start_ + xc_offset, xc_size,
                    xd_.Sub(group_offset, num_groups), xa_ + abstract_offset,
                    num_abstract);
  }

  Eigen::VectorBlock<const VectorX<T>> get_continuous_state_vector() const {
    return static_cast<const VectorX<T>&>(*xc_).segment(xc_start_, xc_size_);
  }
  Eigen::VectorBlock<VectorX<T>> get_mutable_continuous_state_vector() {
    return xc_->segment(xc_start_, xc_size_);
  }
  const DiscreteValues<T>& get_discrete_state() const { return xd_; }
  DiscreteValues<T>& get_mutable_discrete_state() { return xd_; }
  int num_abstract_states() const { return num_xa_; }
  template <typename V>
  const V& get_abstract_state(int i) const {
    return xa_[CheckAbstract(i)]->template get_value<V>();
  }
  AbstractValue& abstract_value(int i) { return *xa_[CheckAbstract(i)]; }
  template <typename V>
  V& get_mutable_abstract_state(int i) {
    return xa_[CheckAbstract(i)]->template get_mutable_value<V>();
  }

 private:
  int CheckAbstract(int i) const {
    if (i < 0 || i >= num_xa_) {
      throw std::out_of_range(fmt::format(
          "State: abstract state {} requested but there are {}", i, num_xa_));
    }
    return i;
  }
  VectorX<T>* xc_{nullptr};
  Eigen::Index xc_start_{0}, xc_size_{0};
  DiscreteValues<T> xd_;
  std::unique_ptr<AbstractValue>* xa_{nullptr};
  int num_xa_{0};
};

}  // namespace tern
