#include "registry/ivalue.h"

#include <array>
#include <sstream>

#include "engine/core/error.h"

namespace glassbox {

namespace {
constexpr std::array<std::string_view, 12> kTagNames = {"None",     "Tensor", "int",        "float",
                                                        "bool",     "str",    "int[]",      "float[]",
                                                        "Tensor[]", "Device", "ScalarType", "Tensor?[]"};

[[noreturn]] void wrong_tag(IValue::Tag want, IValue::Tag got) {
  throw Error("expected a value of type " + std::string(to_string(want)) + " but got " + std::string(to_string(got)));
}
}  // namespace

std::string_view to_string(IValue::Tag t) { return kTagNames[static_cast<size_t>(t)]; }

IValue::IValue(const Scalar& s) {
  if (s.is_bool()) v_ = s.to_bool();
  else if (s.is_integral()) v_ = s.to_int();
  else v_ = s.to_double();
}

#define GB_IVALUE_GET(TAG, TYPE)                   \
  if (auto* p = std::get_if<TYPE>(&v_)) return *p; \
  wrong_tag(Tag::TAG, tag())

Tensor& IValue::to_tensor() { GB_IVALUE_GET(Tensor, Tensor); }
const Tensor& IValue::to_tensor() const { GB_IVALUE_GET(Tensor, Tensor); }
int64_t IValue::to_int() const { GB_IVALUE_GET(Int, int64_t); }
bool IValue::to_bool() const { GB_IVALUE_GET(Bool, bool); }
const std::string& IValue::to_string_ref() const { GB_IVALUE_GET(String, std::string); }
const std::vector<int64_t>& IValue::to_int_list() const { GB_IVALUE_GET(IntList, std::vector<int64_t>); }
const std::vector<double>& IValue::to_double_list() const { GB_IVALUE_GET(DoubleList, std::vector<double>); }
const std::vector<Tensor>& IValue::to_tensor_list() const { GB_IVALUE_GET(TensorList, std::vector<Tensor>); }
const std::vector<std::optional<Tensor>>& IValue::to_optional_tensor_list() const {
  GB_IVALUE_GET(OptionalTensorList, std::vector<std::optional<Tensor>>);
}
Device IValue::to_device() const { GB_IVALUE_GET(Device, Device); }
ScalarType IValue::to_scalar_type() const { GB_IVALUE_GET(ScalarType, ScalarType); }
#undef GB_IVALUE_GET

double IValue::to_double() const {
  if (auto* p = std::get_if<double>(&v_)) return *p;
  if (auto* p = std::get_if<int64_t>(&v_)) return static_cast<double>(*p);
  wrong_tag(Tag::Double, tag());
}

Scalar IValue::to_scalar() const {
  if (auto* p = std::get_if<double>(&v_)) return Scalar(*p);
  if (auto* p = std::get_if<int64_t>(&v_)) return Scalar(*p);
  if (auto* p = std::get_if<bool>(&v_)) return Scalar(*p);
  throw Error("expected a Scalar (int, float or bool) but got " + std::string(to_string(tag())));
}

namespace {
std::string tensor_repr(const Tensor& t) {
  if (!t.defined()) return "Tensor(undefined)";
  std::ostringstream out;
  out << "Tensor[";
  for (size_t i = 0; i < t.sizes().size(); ++i) out << (i ? ", " : "") << t.sizes()[i];
  out << "] " << to_string(t.dtype()) << ' ' << t.device().to_string();
  return out.str();
}
template <class T, class F>
std::string list_repr(const std::vector<T>& v, F f) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + f(v[i]);
  return out + "]";
}
}  // namespace

std::string IValue::repr() const {
  switch (tag()) {
    case Tag::None: return "None";
    case Tag::Tensor: return tensor_repr(std::get<Tensor>(v_));
    case Tag::Int: return std::to_string(std::get<int64_t>(v_));
    case Tag::Double: {
      std::ostringstream out;
      out << std::get<double>(v_);
      return out.str();
    }
    case Tag::Bool: return std::get<bool>(v_) ? "True" : "False";
    case Tag::String: return '"' + std::get<std::string>(v_) + '"';
    case Tag::IntList:
      return list_repr(std::get<std::vector<int64_t>>(v_), [](int64_t i) { return std::to_string(i); });
    case Tag::DoubleList:
      return list_repr(std::get<std::vector<double>>(v_), [](double d) { return IValue(d).repr(); });
    case Tag::TensorList: return list_repr(std::get<std::vector<Tensor>>(v_), tensor_repr);
    case Tag::Device: return std::get<Device>(v_).to_string();
    case Tag::ScalarType: return std::string(glassbox::to_string(std::get<ScalarType>(v_)));
    case Tag::OptionalTensorList:
      return list_repr(std::get<std::vector<std::optional<Tensor>>>(v_),
                       [](const std::optional<Tensor>& t) { return t ? tensor_repr(*t) : std::string("None"); });
  }
  return "?";
}

}  // namespace glassbox
