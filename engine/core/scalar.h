#pragma once
// A number passed to an operator (alpha=1, p=0.5, value=True): int64, double or bool.
#include <cstdint>
#include <string>
#include <type_traits>

namespace glassbox {

class Scalar {
 public:
  enum class Kind : uint8_t { Int, Double, Bool };

  Scalar() : Scalar(int64_t{0}) {}
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : kind_(Kind::Int), i_(static_cast<int64_t>(v)) {}
  template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v) : kind_(Kind::Double), d_(static_cast<double>(v)) {}
  Scalar(bool v) : kind_(Kind::Bool), i_(v) {}

  Kind kind() const { return kind_; }
  bool is_integral() const { return kind_ == Kind::Int; }
  bool is_floating_point() const { return kind_ == Kind::Double; }
  bool is_bool() const { return kind_ == Kind::Bool; }

  double to_double() const { return kind_ == Kind::Double ? d_ : static_cast<double>(i_); }
  int64_t to_int() const { return kind_ == Kind::Double ? static_cast<int64_t>(d_) : i_; }
  bool to_bool() const { return kind_ == Kind::Double ? d_ != 0.0 : i_ != 0; }

  std::string to_string() const {
    if (kind_ == Kind::Bool) return i_ ? "True" : "False";
    if (kind_ == Kind::Int) return std::to_string(i_);
    std::string s = std::to_string(d_);
    return s;
  }

 private:
  Kind kind_;
  union {
    int64_t i_;
    double d_;
  };
};

}  // namespace glassbox
