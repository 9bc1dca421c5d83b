#pragma once
// IValue: one boxed value on the interpreter stack (an argument or a return). Boxed kernels —
// fallbacks, Python kernels, the trace — see every operator through a Stack of IValues.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "engine/core/device.h"
#include "engine/core/scalar.h"
#include "engine/core/scalar_type.h"
#include "engine/core/tensor.h"

namespace glassbox {

class IValue {
 public:
  enum class Tag : uint8_t {
    None,
    Tensor,
    Int,
    Double,
    Bool,
    String,
    IntList,
    DoubleList,
    TensorList,
    Device,
    ScalarType,
    OptionalTensorList,  // Tensor?[]: index.Tensor's indices
  };

  IValue() = default;
  IValue(Tensor t) : v_(std::move(t)) {}
  IValue(int64_t i) : v_(i) {}
  IValue(int i) : v_(int64_t{i}) {}
  IValue(double d) : v_(d) {}
  IValue(bool b) : v_(b) {}
  IValue(std::string s) : v_(std::move(s)) {}
  IValue(const char* s) : v_(std::string(s)) {}
  IValue(std::vector<int64_t> l) : v_(std::move(l)) {}
  IValue(std::vector<double> l) : v_(std::move(l)) {}
  IValue(std::vector<Tensor> l) : v_(std::move(l)) {}
  IValue(std::vector<std::optional<Tensor>> l) : v_(std::move(l)) {}
  IValue(Device d) : v_(d) {}
  IValue(ScalarType t) : v_(t) {}
  IValue(const Scalar& s);

  Tag tag() const { return static_cast<Tag>(v_.index()); }
  bool is_none() const { return tag() == Tag::None; }
  bool is_tensor() const { return tag() == Tag::Tensor; }
  bool is_int() const { return tag() == Tag::Int; }
  bool is_double() const { return tag() == Tag::Double; }
  bool is_bool() const { return tag() == Tag::Bool; }
  bool is_string() const { return tag() == Tag::String; }
  bool is_int_list() const { return tag() == Tag::IntList; }
  bool is_double_list() const { return tag() == Tag::DoubleList; }
  bool is_tensor_list() const { return tag() == Tag::TensorList; }
  bool is_device() const { return tag() == Tag::Device; }
  bool is_scalar_type() const { return tag() == Tag::ScalarType; }
  bool is_optional_tensor_list() const { return tag() == Tag::OptionalTensorList; }
  bool is_scalar() const { return is_int() || is_double() || is_bool(); }

  // Accessors throw an Error naming the expected and the actual tag.
  Tensor& to_tensor();
  const Tensor& to_tensor() const;
  int64_t to_int() const;
  double to_double() const;  // accepts Int too
  bool to_bool() const;
  const std::string& to_string_ref() const;
  const std::vector<int64_t>& to_int_list() const;
  const std::vector<double>& to_double_list() const;
  const std::vector<Tensor>& to_tensor_list() const;
  const std::vector<std::optional<Tensor>>& to_optional_tensor_list() const;
  Device to_device() const;
  ScalarType to_scalar_type() const;
  Scalar to_scalar() const;

  // A short, readable rendering for traces and errors: "Tensor[2, 3] float32 cpu", "1", "[0, 1]".
  std::string repr() const;

 private:
  std::variant<std::monostate, Tensor, int64_t, double, bool, std::string, std::vector<int64_t>, std::vector<double>,
               std::vector<Tensor>, Device, ScalarType, std::vector<std::optional<Tensor>>>
      v_;
};

std::string_view to_string(IValue::Tag t);

using Stack = std::vector<IValue>;

}  // namespace glassbox
