#pragma once
// VectorLog: a time series of vector samples, as recorded by VectorLogSink.
// Samples are stored column by column in preallocated storage that doubles
// when full, so recording into a log with spare capacity never allocates.
#include <vector>

#include "tern/common/eigen_types.h"

namespace tern {

template <typename T>
class VectorLog {
 public:
  static constexpr int kDefaultCapacity = 1000;
  // The preallocation of a log of wide samples is bounded by this many
  // values (256 kB of doubles), so a log of a scene of 10,000 bodies does
  // not start at 1,000 x 130,000 entries; it grows by doubling instead.
  static constexpr int kDefaultValueBudget = 1 << 15;
  // kDefaultCapacity samples, or fewer (at least 16) for samples of more
  // than kDefaultValueBudget / kDefaultCapacity entries.
  static int DefaultCapacity(int input_size);

  // A log of samples with `input_size` entries and room for `capacity`
  // samples (DefaultCapacity(input_size) if not given) before it must
  // allocate.
  explicit VectorLog(int input_size = 0)
      : VectorLog(input_size, DefaultCapacity(input_size)) {}
  VectorLog(int input_size, int capacity);

  int get_input_size() const { return size_; }
  int num_samples() const { return num_samples_; }
  int capacity() const { return static_cast<int>(times_.size()); }
  // (N) the times of the samples, in recording order.
  Eigen::Map<const VectorX<T>> sample_times() const {
    return Eigen::Map<const VectorX<T>>(times_.data(), num_samples_);
  }
  // (size x N) column k is the sample recorded at sample_times()[k].
  Eigen::Map<const MatrixX<T>> data() const {
    return Eigen::Map<const MatrixX<T>>(values_.data(), size_, num_samples_);
  }

  // Makes room for at least `num_samples` samples in total.
  void Reserve(int num_samples);
  // Forgets every sample, keeping the capacity.
  void Clear() { num_samples_ = 0; }
  // Appends one sample; throws std::invalid_argument if its size is not
  // get_input_size().
  void AddData(const T& time, const Eigen::Ref<const VectorX<T>>& sample);

 private:
  int size_;
  int num_samples_{0};
  std::vector<T> times_;   // (capacity)
  std::vector<T> values_;  // (size x capacity), column-major
};

}  // namespace tern
