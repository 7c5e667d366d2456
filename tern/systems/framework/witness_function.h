#pragma once
// WitnessFunction: a scalar function w(context) whose zero crossing (in a
// declared direction) is a state event. The Simulator localizes the crossing
// time within a time tolerance (dense output of the step plus a bracketing
// root finder), truncates the step there, and runs the attached event at the
// crossing: update events as the first updates at that time, publish events
// in the publish phase of the truncated step.
#include <functional>
#include <string>

#include "tern/systems/framework/event.h"

namespace tern {

enum class WitnessDirection {
  kPositiveToNegative,  // w goes from > 0 to <= 0
  kNegativeToPositive,  // w goes from < 0 to >= 0
  kCrossesZero,         // either
};

template <typename T>
struct WitnessFunction {
  std::string name;
  WitnessDirection direction{WitnessDirection::kCrossesZero};
  std::function<T(const Context<T>&)> calc;
  Event<T> event;  // trigger == TriggerType::kWitness

  // True if going from w0 to w1 is a crossing in this witness's direction.
  // (A step that starts exactly at w = 0, e.g. a ball put back on the floor
  // by its impact event, is resolved by the Simulator from the sign of w
  // just after the start.)
  bool Triggered(double w0, double w1) const {
    const bool down = w0 > 0 && w1 <= 0;
    const bool up = w0 < 0 && w1 >= 0;
    switch (direction) {
      case WitnessDirection::kPositiveToNegative:
        return down;
      case WitnessDirection::kNegativeToPositive:
        return up;
      case WitnessDirection::kCrossesZero:
        return down || up;
    }
    return false;
  }
  // True if w1 is on the side a crossing leads to.
  bool OnCrossedSide(double w1) const {
    switch (direction) {
      case WitnessDirection::kPositiveToNegative:
        return w1 < 0;
      case WitnessDirection::kNegativeToPositive:
        return w1 > 0;
      case WitnessDirection::kCrossesZero:
        return w1 != 0;
    }
    return false;
  }
};

}  // namespace tern
