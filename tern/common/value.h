#pragma once
// Type-erased values: AbstractValue holds one value of any copyable type;
// Value<V> is the typed holder. Used for abstract state, abstract parameters
// and abstract ports.
#include <memory>
#include <stdexcept>
#include <string>
#include <typeinfo>

namespace tern {

template <typename V>
class Value;

class AbstractValue {
 public:
  virtual ~AbstractValue() = default;
  virtual std::unique_ptr<AbstractValue> Clone() const = 0;
  // Copies other's value into this one; throws std::logic_error if the types
  // differ.
  virtual void SetFrom(const AbstractValue& other) = 0;
  virtual const std::type_info& type_info() const = 0;
  // Demangled name of the held type, for messages.
  std::string type_name() const;

  template <typename V>
  static std::unique_ptr<AbstractValue> Make(const V& value) {
    return std::make_unique<Value<V>>(value);
  }

  // The held value; throws std::logic_error naming both types on mismatch.
  template <typename V>
  const V& get_value() const {
    return checked_cast<V>().get_value();
  }
  template <typename V>
  V& get_mutable_value() {
    return const_cast<Value<V>&>(checked_cast<V>()).get_mutable_value();
  }
  template <typename V>
  void set_value(const V& v) {
    get_mutable_value<V>() = v;
  }
  // The held value, or nullptr if it is not a V.
  template <typename V>
  const V* maybe_get_value() const {
    auto* p = dynamic_cast<const Value<V>*>(this);
    return p ? &p->get_value() : nullptr;
  }

 private:
  template <typename V>
  const Value<V>& checked_cast() const {
    auto* p = dynamic_cast<const Value<V>*>(this);
    if (p == nullptr) ThrowTypeMismatch(typeid(V));
    return *p;
  }
  [[noreturn]] void ThrowTypeMismatch(const std::type_info& requested) const;
};

template <typename V>
class Value final : public AbstractValue {
 public:
  Value() = default;
  explicit Value(const V& v) : value_(v) {}
  std::unique_ptr<AbstractValue> Clone() const override {
    return std::make_unique<Value<V>>(value_);
  }
  void SetFrom(const AbstractValue& other) override {
    value_ = other.get_value<V>();
  }
  const std::type_info& type_info() const override { return typeid(V); }
  const V& get_value() const { return value_; }
  V& get_mutable_value() { return value_; }

 private:
  V value_{};
};

// Demangled C++ type name.
std::string NiceTypeName(const std::type_info& info);

}  // namespace tern
