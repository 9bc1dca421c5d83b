#include "engine/ops/tensor_printing.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "registry/dispatcher.h"

namespace glassbox {

namespace {

// The print options PyTorch starts with.
constexpr int64_t kThreshold = 1000;  // more elements than this are summarised
constexpr int64_t kEdgeItems = 3;     // elements kept at each end of a summarised dimension
constexpr int64_t kLineWidth = 80;

// One element, read as the widest type of its kind.
struct Element {
  double f = 0;
  int64_t i = 0;
};

enum class Kind { Floating, Integer, Boolean };

Kind kind_of(ScalarType t) {
  if (is_floating_point(t)) return Kind::Floating;
  return t == ScalarType::Bool ? Kind::Boolean : Kind::Integer;
}

Element read_element(const Tensor& t, int64_t storage_index) {
  const char* base = static_cast<const char*>(t.unsafe_impl()->storage()->data());
  Element e;
  visit_scalar_type(t.dtype(), [&]<class T>() {
    const T v = reinterpret_cast<const T*>(base)[storage_index];
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      e.f = static_cast<float>(v);  // float16 and bfloat16 print through float, as in PyTorch
    } else if constexpr (std::is_floating_point_v<T>) {
      e.f = v;
    } else {
      e.i = static_cast<int64_t>(v);
    }
  });
  return e;
}

// Indices shown along a dimension of `size`: all of them, or the edges when summarising.
std::vector<int64_t> shown_indices(int64_t size, bool summarize) {
  std::vector<int64_t> idx;
  if (summarize && size > 2 * kEdgeItems) {
    for (int64_t i = 0; i < kEdgeItems; ++i) idx.push_back(i);
    for (int64_t i = size - kEdgeItems; i < size; ++i) idx.push_back(i);
  } else {
    for (int64_t i = 0; i < size; ++i) idx.push_back(i);
  }
  return idx;
}

// "%.4e", "%.0f" and "%.4f" of a double, as Python's format() writes them for finite values.
std::string printf_string(const char* fmt, double v) {
  char buf[400];  // %.0f of the largest double has 309 digits
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string nonfinite_string(double v) {
  if (std::isnan(v)) return "nan";
  return v < 0 ? "-inf" : "inf";
}

// Decides one format for every shown element, so columns line up: integers-as-floats (`1.`),
// fixed point with 4 decimals, or scientific notation when the magnitudes are far apart.
class Formatter {
 public:
  Formatter(Kind kind, const std::vector<Element>& shown) : kind_(kind) {
    if (kind_ != Kind::Floating) {
      for (const Element& e : shown) width_ = std::max<int64_t>(width_, static_cast<int64_t>(raw(e).size()));
      return;
    }
    std::vector<double> finite;
    for (const Element& e : shown)
      if (std::isfinite(e.f) && e.f != 0) finite.push_back(e.f);
    if (finite.empty()) return;
    double lo = std::abs(finite[0]), hi = lo;
    for (double v : finite) {
      lo = std::min(lo, std::abs(v));
      hi = std::max(hi, std::abs(v));
      if (v != std::ceil(v)) int_mode_ = false;
    }
    sci_mode_ = hi / lo > 1000.0 || hi > 1.0e8 || (!int_mode_ && lo < 1.0e-4);
    for (double v : finite) {
      int64_t w;
      if (sci_mode_) w = static_cast<int64_t>(printf_string("%.4e", v).size());
      else if (int_mode_) w = static_cast<int64_t>(printf_string("%.0f", v).size()) + 1;
      else w = static_cast<int64_t>(printf_string("%.4f", v).size());
      width_ = std::max(width_, w);
    }
  }

  int64_t width() const { return width_; }

  std::string format(const Element& e) const {
    std::string s = raw(e);
    if (static_cast<int64_t>(s.size()) < width_) s.insert(0, static_cast<size_t>(width_ - s.size()), ' ');
    return s;
  }

 private:
  std::string raw(const Element& e) const {
    if (kind_ == Kind::Boolean) return e.i ? "True" : "False";
    if (kind_ == Kind::Integer) return std::to_string(e.i);
    if (!std::isfinite(e.f)) return nonfinite_string(e.f);
    if (sci_mode_) return printf_string("%.4e", e.f);
    if (int_mode_) return printf_string("%.0f", e.f) + ".";
    return printf_string("%.4f", e.f);
  }

  Kind kind_;
  bool int_mode_ = true;
  bool sci_mode_ = false;
  int64_t width_ = 1;
};

class Printer {
 public:
  Printer(const Tensor& t, bool summarize) : t_(t), kind_(kind_of(t.dtype())), summarize_(summarize) {}

  // Every element that will be shown, in print order (the formatter sizes columns from these).
  std::vector<Element> shown_elements() const {
    std::vector<Element> out;
    collect(0, t_.storage_offset(), out);
    return out;
  }

  std::string body(const Formatter& f, int64_t indent) const { return block(f, 0, t_.storage_offset(), indent); }

 private:
  void collect(int64_t d, int64_t offset, std::vector<Element>& out) const {
    if (d == t_.dim()) {
      out.push_back(read_element(t_, offset));
      return;
    }
    for (int64_t i : shown_indices(t_.sizes()[d], summarize_)) collect(d + 1, offset + i * t_.strides()[d], out);
  }

  std::string block(const Formatter& f, int64_t d, int64_t offset, int64_t indent) const {
    const int64_t rank = t_.dim() - d;
    if (rank == 0) return f.format(read_element(t_, offset));
    const int64_t size = t_.sizes()[d], stride = t_.strides()[d];
    const bool cut = summarize_ && size > 2 * kEdgeItems;
    std::vector<std::string> parts;
    for (int64_t i : shown_indices(size, summarize_)) {
      if (cut && i == size - kEdgeItems) parts.push_back(rank == 1 ? " ..." : "...");
      parts.push_back(rank == 1 ? f.format(read_element(t_, offset + i * stride))
                                : block(f, d + 1, offset + i * stride, indent + 1));
    }
    std::string out = "[";
    if (rank == 1) {
      // Elements wrap at the line width, each taking its column width plus ", ".
      const int64_t per_line = std::max<int64_t>(1, (kLineWidth - indent) / (f.width() + 2));
      for (size_t i = 0; i < parts.size(); ++i) {
        if (i > 0) out += static_cast<int64_t>(i) % per_line == 0 ? ",\n" + std::string(indent + 1, ' ') : ", ";
        out += parts[i];
      }
    } else {
      const std::string sep = "," + std::string(rank - 1, '\n') + std::string(indent + 1, ' ');
      for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
    }
    return out + "]";
  }

  const Tensor& t_;
  Kind kind_;
  bool summarize_;
};

std::string size_tuple(const DimVector& sizes) {
  std::string s = "(";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + (sizes.size() == 1 ? ",)" : ")");
}

// Suffixes go after the contents, on the same line while it stays within the line width.
std::string with_suffixes(std::string text, const std::vector<std::string>& suffixes, int64_t indent) {
  const size_t nl = text.rfind('\n');
  int64_t last_line = static_cast<int64_t>(text.size()) - (nl == std::string::npos ? -1 : static_cast<int64_t>(nl)) + 1;
  for (const std::string& s : suffixes) {
    const int64_t len = static_cast<int64_t>(s.size());
    if (last_line + len + 2 > kLineWidth) {
      text += ",\n" + std::string(indent, ' ') + s;
      last_line = indent + len;
    } else {
      text += ", " + s;
      last_line += len + 2;
    }
  }
  return text + ")";
}

// The elements of a tensor on another device, copied to the CPU through the dispatcher.
Tensor host_copy(const Tensor& t) {
  Tensor out = empty_tensor(t.sizes(), t.dtype(), Device(DeviceType::CPU));
  auto copy =
      Dispatcher::singleton().find_schema_or_throw("glassbox::copy_").typed<Tensor&(Tensor&, const Tensor&, bool)>();
  copy.call(out, t, false);
  return out;
}

}  // namespace

std::string to_string(const Tensor& t) {
  if (!t.defined()) return "tensor(undefined)";
  const std::string prefix = "tensor(";
  const int64_t indent = static_cast<int64_t>(prefix.size());
  std::vector<std::string> suffixes;
  if (t.device().type != DeviceType::CPU) suffixes.push_back("device='" + t.device().to_string() + "'");
  const std::string dtype_suffix = "dtype=glassbox." + std::string(glassbox::to_string(t.dtype()));
  std::string contents;
  if (t.device().type == DeviceType::Meta || !t.unsafe_impl()->has_storage()) {
    suffixes.push_back("size=" + size_tuple(t.sizes()));
    if (t.dtype() != kDefaultFloat) suffixes.push_back(dtype_suffix);
    contents = "...";
  } else if (t.numel() == 0) {
    if (t.dim() != 1) suffixes.push_back("size=" + size_tuple(t.sizes()));
    if (t.dtype() != kDefaultFloat) suffixes.push_back(dtype_suffix);
    contents = "[]";
  } else {
    // float32, int64 and bool are what Python numbers and literals give: no suffix for them.
    const ScalarType d = t.dtype();
    if (d != kDefaultFloat && d != ScalarType::Int64 && d != ScalarType::Bool) suffixes.push_back(dtype_suffix);
    const Tensor host = t.device().type == DeviceType::CPU ? t : host_copy(t);
    const Printer printer(host, host.numel() > kThreshold);
    const Formatter formatter(kind_of(host.dtype()), printer.shown_elements());
    contents = printer.body(formatter, indent);
  }
  return with_suffixes(prefix + contents, suffixes, indent);
}

std::ostream& operator<<(std::ostream& out, const Tensor& t) { return out << to_string(t); }

}  // namespace glassbox
