#include "tern/systems/primitives/vector_log.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "tern/common/default_scalars.h"

namespace tern {

template <typename T>
int VectorLog<T>::DefaultCapacity(int input_size) {
  if (input_size <= 0) return kDefaultCapacity;
  return std::clamp(kDefaultValueBudget / input_size, 16, kDefaultCapacity);
}

template <typename T>
VectorLog<T>::VectorLog(int input_size, int capacity) : size_(input_size) {
  if (input_size < 0 || capacity < 0) {
    throw std::invalid_argument(
        fmt::format("VectorLog: input_size ({}) and capacity ({}) must be >= 0",
                    input_size, capacity));
  }
  Reserve(capacity);
}

template <typename T>
void VectorLog<T>::Reserve(int num_samples) {
  if (num_samples <= capacity()) return;
  times_.resize(num_samples);
  values_.resize(static_cast<std::size_t>(num_samples) * size_);
}

template <typename T>
void VectorLog<T>::AddData(const T& time,
                           const Eigen::Ref<const VectorX<T>>& sample) {
  if (sample.size() != size_) {
    throw std::invalid_argument(fmt::format(
        "VectorLog::AddData: sample has size {} but the log records size {}",
        sample.size(), size_));
  }
  if (num_samples_ == capacity()) Reserve(std::max(16, 2 * capacity()));
  times_[num_samples_] = time;
  Eigen::Map<VectorX<T>>(
      values_.data() + static_cast<std::size_t>(num_samples_) * size_, size_) =
      sample;
  ++num_samples_;
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(VectorLog)

}  // namespace tern
